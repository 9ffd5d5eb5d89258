"""The C side of DRMAA 1.0: the types and functions the library exports, and the header
(drmaa.h) C programs compile against, its constants taken from codes."""

from __future__ import annotations

TYPES = """
typedef struct drmaa_job_template_s drmaa_job_template_t;
typedef struct drmaa_attr_names_s drmaa_attr_names_t;
typedef struct drmaa_attr_values_s drmaa_attr_values_t;
typedef struct drmaa_job_ids_s drmaa_job_ids_t;
"""

# Every function: (return type, name, parameters).
FUNCTIONS: tuple[tuple[str, str, str], ...] = (
    ("int", "drmaa_get_next_attr_name",
     "drmaa_attr_names_t *values, char *value, size_t value_len"),
    ("int", "drmaa_get_next_attr_value",
     "drmaa_attr_values_t *values, char *value, size_t value_len"),
    ("int", "drmaa_get_next_job_id", "drmaa_job_ids_t *values, char *value, size_t value_len"),
    ("int", "drmaa_get_num_attr_names", "drmaa_attr_names_t *values, int *size"),
    ("int", "drmaa_get_num_attr_values", "drmaa_attr_values_t *values, int *size"),
    ("int", "drmaa_get_num_job_ids", "drmaa_job_ids_t *values, int *size"),
    ("void", "drmaa_release_attr_names", "drmaa_attr_names_t *values"),
    ("void", "drmaa_release_attr_values", "drmaa_attr_values_t *values"),
    ("void", "drmaa_release_job_ids", "drmaa_job_ids_t *values"),
    ("int", "drmaa_init", "const char *contact, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_exit", "char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_allocate_job_template",
     "drmaa_job_template_t **jt, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_delete_job_template",
     "drmaa_job_template_t *jt, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_set_attribute",
     "drmaa_job_template_t *jt, const char *name, const char *value, char *error_diagnosis, "
     "size_t error_diag_len"),
    ("int", "drmaa_get_attribute",
     "drmaa_job_template_t *jt, const char *name, char *value, size_t value_len, "
     "char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_set_vector_attribute",
     "drmaa_job_template_t *jt, const char *name, const char *value[], "
     "char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_get_vector_attribute",
     "drmaa_job_template_t *jt, const char *name, drmaa_attr_values_t **values, "
     "char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_get_attribute_names",
     "drmaa_attr_names_t **values, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_get_vector_attribute_names",
     "drmaa_attr_names_t **values, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_run_job",
     "char *job_id, size_t job_id_len, const drmaa_job_template_t *jt, "
     "char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_run_bulk_jobs",
     "drmaa_job_ids_t **jobids, const drmaa_job_template_t *jt, unsigned start, "
     "unsigned end, int incr, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_control",
     "const char *jobid, int action, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_synchronize",
     "const char *job_ids[], signed long timeout, int dispose, char *error_diagnosis, "
     "size_t error_diag_len"),
    ("int", "drmaa_wait",
     "const char *job_id, char *job_id_out, size_t job_id_out_len, int *stat, "
     "signed long timeout, drmaa_attr_values_t **rusage, char *error_diagnosis, "
     "size_t error_diag_len"),
    ("int", "drmaa_wifexited",
     "int *exited, int stat, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_wexitstatus",
     "int *exit_status, int stat, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_wifsignaled",
     "int *signaled, int stat, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_wtermsig",
     "char *signal, size_t signal_len, int stat, char *error_diagnosis, "
     "size_t error_diag_len"),
    ("int", "drmaa_wcoredump",
     "int *core_dumped, int stat, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_wifaborted",
     "int *aborted, int stat, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_job_ps",
     "const char *job_id, int *remote_ps, char *error_diagnosis, size_t error_diag_len"),
    ("const char *", "drmaa_strerror", "int drmaa_errno"),
    ("int", "drmaa_get_contact",
     "char *contact, size_t contact_len, char *error_diagnosis, size_t error_diag_len"),
    ("int", "drmaa_version",
     "unsigned int *major, unsigned int *minor, char *error_diagnosis, "
     "size_t error_diag_len"),
    ("int", "drmaa_get_DRM_system",
     "char *drm_system, size_t drm_system_len, char *error_diagnosis, "
     "size_t error_diag_len"),
    ("int", "drmaa_get_DRMAA_implementation",
     "char *drmaa_impl, size_t drmaa_impl_len, char *error_diagnosis, "
     "size_t error_diag_len"),
)


def prototypes() -> str:
    """The function declarations, as cffi's embedding_api and C read them."""
    return "".join(f"{ret} {name}({params});\n" for ret, name, params in FUNCTIONS)


def header() -> str:
    """drmaa.h: constants, types and functions."""
    from gridd.drmaa import codes

    defines = [
        *((f"DRMAA_{name[len('drmaa_'):].upper()}", f'"{name}"')
          for name in codes.SCALAR + codes.VECTOR),
        ("DRMAA_PLACEHOLDER_INCR", f'"{codes.PLACEHOLDER_INCR}"'),
        ("DRMAA_PLACEHOLDER_HD", f'"{codes.PLACEHOLDER_HD}"'),
        ("DRMAA_PLACEHOLDER_WD", f'"{codes.PLACEHOLDER_WD}"'),
        ("DRMAA_SUBMISSION_STATE_ACTIVE", f'"{codes.ACTIVE}"'),
        ("DRMAA_SUBMISSION_STATE_HOLD", f'"{codes.HOLD}"'),
        ("DRMAA_JOB_IDS_SESSION_ALL", f'"{codes.JOB_IDS_SESSION_ALL}"'),
        ("DRMAA_JOB_IDS_SESSION_ANY", f'"{codes.JOB_IDS_SESSION_ANY}"'),
    ]
    for name, value in vars(codes).items():
        if isinstance(value, int) and name.isupper() and not name.startswith("_"):
            if name.startswith(("PS_", "CONTROL_", "TIMEOUT_")):
                defines.append((f"DRMAA_{name}", str(value)))
            elif name.endswith("_BUFFER"):
                defines.append((f"DRMAA_{name}", str(value)))
            else:  # the error codes (NO_ERRNO, one past the last, is named apart)
                defines.append((f"DRMAA_{'' if name == 'NO_ERRNO' else 'ERRNO_'}{name}",
                                str(value)))
    lines = ["/* DRMAA 1.0 for gridd (gridd drmaa-library --header) */",
             "#ifndef GRIDD_DRMAA_H", "#define GRIDD_DRMAA_H", "#include <stddef.h>",
             "#ifdef __cplusplus", 'extern "C" {', "#endif",
             *(f"#define {name} {value}" for name, value in defines),
             TYPES + prototypes(), "#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    return "\n".join(lines)
