"""DRMAA 1.0's numbers and words: error codes and their texts, job states, control
actions, the special job ids and timeouts, as the standard's C binding defines them."""

from __future__ import annotations

SUCCESS = 0
INTERNAL_ERROR = 1
DRM_COMMUNICATION_FAILURE = 2
AUTH_FAILURE = 3
INVALID_ARGUMENT = 4
NO_ACTIVE_SESSION = 5
NO_MEMORY = 6
INVALID_CONTACT_STRING = 7
DEFAULT_CONTACT_STRING_ERROR = 8
NO_DEFAULT_CONTACT_STRING_SELECTED = 9
DRMS_INIT_FAILED = 10
ALREADY_ACTIVE_SESSION = 11
DRMS_EXIT_ERROR = 12
INVALID_ATTRIBUTE_FORMAT = 13
INVALID_ATTRIBUTE_VALUE = 14
CONFLICTING_ATTRIBUTE_VALUES = 15
TRY_LATER = 16
DENIED_BY_DRM = 17
INVALID_JOB = 18
RESUME_INCONSISTENT_STATE = 19
SUSPEND_INCONSISTENT_STATE = 20
HOLD_INCONSISTENT_STATE = 21
RELEASE_INCONSISTENT_STATE = 22
EXIT_TIMEOUT = 23
NO_RUSAGE = 24
NO_MORE_ELEMENTS = 25
NO_ERRNO = 26

# What drmaa_strerror says of each code, in Grid Engine's words (NO_ERRNO has none).
MESSAGES: dict[int, str] = {
    SUCCESS: "Routine returned normally with success.",
    INTERNAL_ERROR: "Unexpected or internal DRMAA error like memory allocation, system call "
                    "failure, etc.",
    DRM_COMMUNICATION_FAILURE: "Could not contact DRM system",
    AUTH_FAILURE: "The specified request is not processed successfully due to "
                  "authorization failure.",
    INVALID_ARGUMENT: "The input value for an argument is invalid.",
    NO_ACTIVE_SESSION: "No active session",
    NO_MEMORY: "failed allocating memory",
    INVALID_CONTACT_STRING: "Initialization failed due to invalid contact string.",
    DEFAULT_CONTACT_STRING_ERROR: "DRMAA could not use the default contact string to "
                                  "connect to DRM system.",
    NO_DEFAULT_CONTACT_STRING_SELECTED: "No default contact string was provided or selected.",
    DRMS_INIT_FAILED: "Initialization failed due to failure to init DRM system.",
    ALREADY_ACTIVE_SESSION: "Initialization failed due to existing DRMAA session.",
    DRMS_EXIT_ERROR: "DRM system disengagement failed.",
    INVALID_ATTRIBUTE_FORMAT: "The format for the job attribute value is invalid.",
    INVALID_ATTRIBUTE_VALUE: "The value for the job attribute is invalid.",
    CONFLICTING_ATTRIBUTE_VALUES: "The value of this attribute is conflicting with a "
                                  "previously set attributes.",
    TRY_LATER: "Could not pass job now to DRM system. A retry may succeed however "
               "(saturation).",
    DENIED_BY_DRM: "The DRM system rejected the job. The job will never be accepted due "
                   "to DRM configuration or job template settings.",
    INVALID_JOB: "The job specified by the 'jobid' does not exist.",
    RESUME_INCONSISTENT_STATE: "The job has not been suspended. The RESUME request will "
                               "not be processed.",
    SUSPEND_INCONSISTENT_STATE: "The job has not been running, and it cannot be suspended.",
    HOLD_INCONSISTENT_STATE: "The job cannot be moved to a HOLD state.",
    RELEASE_INCONSISTENT_STATE: "The job is not in a HOLD state.",
    EXIT_TIMEOUT: "time-out condition",
    NO_RUSAGE: "no usage information was returned for the completed job",
    NO_MORE_ELEMENTS: "no more elements are contained in the opaque string vector",
}

# Job states (drmaa_job_ps).
PS_UNDETERMINED = 0x00
PS_QUEUED_ACTIVE = 0x10
PS_SYSTEM_ON_HOLD = 0x11
PS_USER_ON_HOLD = 0x12
PS_USER_SYSTEM_ON_HOLD = 0x13
PS_RUNNING = 0x20
PS_SYSTEM_SUSPENDED = 0x21
PS_USER_SUSPENDED = 0x22
PS_USER_SYSTEM_SUSPENDED = 0x23
PS_DONE = 0x30
PS_FAILED = 0x40

# drmaa_control's actions.
CONTROL_SUSPEND = 0
CONTROL_RESUME = 1
CONTROL_HOLD = 2
CONTROL_RELEASE = 3
CONTROL_TERMINATE = 4

TIMEOUT_WAIT_FOREVER = -1
TIMEOUT_NO_WAIT = 0
JOB_IDS_SESSION_ANY = "DRMAA_JOB_IDS_SESSION_ANY"
JOB_IDS_SESSION_ALL = "DRMAA_JOB_IDS_SESSION_ALL"

# Job template attributes: scalar and vector, in the order drmaa_get_attribute_names
# lists them (Grid Engine's first).
REMOTE_COMMAND = "drmaa_remote_command"
JS_STATE = "drmaa_js_state"
WD = "drmaa_wd"
JOB_CATEGORY = "drmaa_job_category"
NATIVE_SPECIFICATION = "drmaa_native_specification"
BLOCK_EMAIL = "drmaa_block_email"
START_TIME = "drmaa_start_time"
JOB_NAME = "drmaa_job_name"
INPUT_PATH = "drmaa_input_path"
OUTPUT_PATH = "drmaa_output_path"
ERROR_PATH = "drmaa_error_path"
JOIN_FILES = "drmaa_join_files"
TRANSFER_FILES = "drmaa_transfer_files"
DEADLINE_TIME = "drmaa_deadline_time"
WCT_HLIMIT = "drmaa_wct_hlimit"
WCT_SLIMIT = "drmaa_wct_slimit"
DURATION_HLIMIT = "drmaa_duration_hlimit"
DURATION_SLIMIT = "drmaa_duration_slimit"
V_ARGV = "drmaa_v_argv"
V_ENV = "drmaa_v_env"
V_EMAIL = "drmaa_v_email"

SCALAR = (REMOTE_COMMAND, JS_STATE, WD, JOB_NAME, INPUT_PATH, OUTPUT_PATH, ERROR_PATH,
          JOIN_FILES, JOB_CATEGORY, NATIVE_SPECIFICATION, BLOCK_EMAIL, START_TIME,
          TRANSFER_FILES, DEADLINE_TIME, WCT_HLIMIT, WCT_SLIMIT, DURATION_HLIMIT,
          DURATION_SLIMIT)
VECTOR = (V_ARGV, V_ENV, V_EMAIL)

# Placeholders in paths, and the pseudo variables execd expands for them.
PLACEHOLDER_INCR = "$drmaa_incr_ph$"
PLACEHOLDER_HD = "$drmaa_hd_ph$"
PLACEHOLDER_WD = "$drmaa_wd_ph$"
HOLD = "drmaa_hold"
ACTIVE = "drmaa_active"


# Sizes the standard suggests for buffers callers hand in.
ATTR_BUFFER = 1024
CONTACT_BUFFER = 1024
DRM_SYSTEM_BUFFER = 1024
DRMAA_IMPLEMENTATION_BUFFER = 1024
ERROR_STRING_BUFFER = 1024
JOBNAME_BUFFER = 1024
SIGNAL_BUFFER = 32


class DrmaaError(Exception):
    """A DRMAA call's failure: its code, and the diagnosis for error_diagnosis."""

    def __init__(self, code: int, text: str = "") -> None:
        super().__init__(text or MESSAGES.get(code, ""))
        self.code = code
        self.text = text or MESSAGES.get(code, "")
