-- The reporting database before advance reservations: ARCo's job, job log, request and
-- dimension tables with their value tables, and its everyday views.
--
-- Adapted to DuckDB. Ids are BIGINT filled from a sequence per table (ARCo's `serial`);
-- keys are not declared PRIMARY KEY and ARCo's secondary indexes are left out, because
-- DuckDB's index maintenance slows the bulk inserts the writer lives on and scans do not
-- use them. Times are TIMESTAMP in UTC, NULL where a record says 0 ("never").

CREATE TABLE sge_version (
    v_id      INTEGER PRIMARY KEY,
    v_version VARCHAR NOT NULL,
    v_time    TIMESTAMP NOT NULL
);

-- Where the writer stopped in a reporting file (ARCo: the last line processed).
CREATE TABLE sge_checkpoint (
    ch_id   INTEGER PRIMARY KEY,
    ch_line BIGINT,
    ch_time TIMESTAMP
);

CREATE SEQUENCE sge_job_seq;
CREATE TABLE sge_job (
    j_id              BIGINT NOT NULL DEFAULT nextval('sge_job_seq'),
    j_job_number      BIGINT NOT NULL,
    j_task_number     BIGINT NOT NULL,
    j_pe_taskid       VARCHAR NOT NULL,
    j_job_name        VARCHAR,
    j_group           VARCHAR,
    j_owner           VARCHAR,
    j_account         VARCHAR,
    j_priority        INTEGER,
    j_submission_time TIMESTAMP,
    j_project         VARCHAR,
    j_department      VARCHAR
);

-- One row per accounting record of the job (a rescheduled task has several).
CREATE SEQUENCE sge_job_usage_seq;
CREATE TABLE sge_job_usage (
    ju_id           BIGINT NOT NULL DEFAULT nextval('sge_job_usage_seq'),
    ju_parent       BIGINT NOT NULL,
    ju_curr_time    TIMESTAMP,
    ju_qname        VARCHAR,
    ju_hostname     VARCHAR,
    ju_start_time   TIMESTAMP,
    ju_end_time     TIMESTAMP,
    ju_failed       INTEGER,
    ju_exit_status  INTEGER,
    ju_granted_pe   VARCHAR,
    ju_slots        INTEGER,
    ju_ru_wallclock BIGINT,
    ju_ru_utime     DOUBLE,
    ju_ru_stime     DOUBLE,
    ju_ru_maxrss    DOUBLE,
    ju_ru_ixrss     BIGINT,
    ju_ru_issmrss   BIGINT,
    ju_ru_idrss     BIGINT,
    ju_ru_isrss     BIGINT,
    ju_ru_minflt    BIGINT,
    ju_ru_majflt    BIGINT,
    ju_ru_nswap     BIGINT,
    ju_ru_inblock   DOUBLE,
    ju_ru_outblock  BIGINT,
    ju_ru_msgsnd    BIGINT,
    ju_ru_msgrcv    BIGINT,
    ju_ru_nsignals  BIGINT,
    ju_ru_nvcsw     BIGINT,
    ju_ru_nivcsw    BIGINT,
    ju_cpu          DOUBLE,
    ju_mem          DOUBLE,
    ju_io           DOUBLE,
    ju_iow          DOUBLE,
    ju_maxvmem      DOUBLE
);

CREATE SEQUENCE sge_job_log_seq;
CREATE TABLE sge_job_log (
    jl_id         BIGINT NOT NULL DEFAULT nextval('sge_job_log_seq'),
    jl_parent     BIGINT NOT NULL,
    jl_time       TIMESTAMP,
    jl_event      VARCHAR,
    jl_state      VARCHAR,
    jl_user       VARCHAR,
    jl_host       VARCHAR,
    jl_state_time INTEGER,
    jl_message    VARCHAR
);

-- The job's -l requests, one row per resource.
CREATE SEQUENCE sge_job_request_seq;
CREATE TABLE sge_job_request (
    jr_id       BIGINT NOT NULL DEFAULT nextval('sge_job_request_seq'),
    jr_parent   BIGINT NOT NULL,
    jr_variable VARCHAR,
    jr_value    VARCHAR
);

-- Dimensions and their time series of values. *_value holds the text as reported,
-- *_dvalue its number (memory suffixes applied), *_dconfig a consumable's capacity.
CREATE SEQUENCE sge_queue_seq;
CREATE TABLE sge_queue (
    q_id       BIGINT NOT NULL DEFAULT nextval('sge_queue_seq'),
    q_qname    VARCHAR NOT NULL,
    q_hostname VARCHAR NOT NULL
);
CREATE SEQUENCE sge_queue_values_seq;
CREATE TABLE sge_queue_values (
    qv_id         BIGINT NOT NULL DEFAULT nextval('sge_queue_values_seq'),
    qv_parent     BIGINT NOT NULL,
    qv_time_start TIMESTAMP,
    qv_time_end   TIMESTAMP,
    qv_variable   VARCHAR,
    qv_value      VARCHAR,
    qv_dvalue     DOUBLE,
    qv_dconfig    DOUBLE
);

CREATE SEQUENCE sge_host_seq;
CREATE TABLE sge_host (
    h_id       BIGINT NOT NULL DEFAULT nextval('sge_host_seq'),
    h_hostname VARCHAR NOT NULL
);
CREATE SEQUENCE sge_host_values_seq;
CREATE TABLE sge_host_values (
    hv_id         BIGINT NOT NULL DEFAULT nextval('sge_host_values_seq'),
    hv_parent     BIGINT NOT NULL,
    hv_time_start TIMESTAMP,
    hv_time_end   TIMESTAMP,
    hv_variable   VARCHAR,
    hv_value      VARCHAR,
    hv_dvalue     DOUBLE,
    hv_dconfig    DOUBLE
);

CREATE SEQUENCE sge_user_seq;
CREATE TABLE sge_user (
    u_id   BIGINT NOT NULL DEFAULT nextval('sge_user_seq'),
    u_user VARCHAR NOT NULL
);
CREATE SEQUENCE sge_user_values_seq;
CREATE TABLE sge_user_values (
    uv_id         BIGINT NOT NULL DEFAULT nextval('sge_user_values_seq'),
    uv_parent     BIGINT NOT NULL,
    uv_time_start TIMESTAMP,
    uv_time_end   TIMESTAMP,
    uv_variable   VARCHAR,
    uv_value      VARCHAR,
    uv_dvalue     DOUBLE,
    uv_dconfig    DOUBLE
);

CREATE SEQUENCE sge_group_seq;
CREATE TABLE sge_group (
    g_id    BIGINT NOT NULL DEFAULT nextval('sge_group_seq'),
    g_group VARCHAR NOT NULL
);
CREATE SEQUENCE sge_group_values_seq;
CREATE TABLE sge_group_values (
    gv_id         BIGINT NOT NULL DEFAULT nextval('sge_group_values_seq'),
    gv_parent     BIGINT NOT NULL,
    gv_time_start TIMESTAMP,
    gv_time_end   TIMESTAMP,
    gv_variable   VARCHAR,
    gv_value      VARCHAR,
    gv_dvalue     DOUBLE,
    gv_dconfig    DOUBLE
);

CREATE SEQUENCE sge_project_seq;
CREATE TABLE sge_project (
    p_id      BIGINT NOT NULL DEFAULT nextval('sge_project_seq'),
    p_project VARCHAR NOT NULL
);
CREATE SEQUENCE sge_project_values_seq;
CREATE TABLE sge_project_values (
    pv_id         BIGINT NOT NULL DEFAULT nextval('sge_project_values_seq'),
    pv_parent     BIGINT NOT NULL,
    pv_time_start TIMESTAMP,
    pv_time_end   TIMESTAMP,
    pv_variable   VARCHAR,
    pv_value      VARCHAR,
    pv_dvalue     DOUBLE,
    pv_dconfig    DOUBLE
);

CREATE SEQUENCE sge_department_seq;
CREATE TABLE sge_department (
    d_id         BIGINT NOT NULL DEFAULT nextval('sge_department_seq'),
    d_department VARCHAR NOT NULL
);
CREATE SEQUENCE sge_department_values_seq;
CREATE TABLE sge_department_values (
    dv_id         BIGINT NOT NULL DEFAULT nextval('sge_department_values_seq'),
    dv_parent     BIGINT NOT NULL,
    dv_time_start TIMESTAMP,
    dv_time_end   TIMESTAMP,
    dv_variable   VARCHAR,
    dv_value      VARCHAR,
    dv_dvalue     DOUBLE,
    dv_dconfig    DOUBLE
);

-- Views. Time differences are INTERVALs, as PostgreSQL's ::interval casts gave ARCo.

CREATE VIEW view_accounting AS
    SELECT j_job_number AS job_number, j_task_number AS task_number,
           j_pe_taskid AS pe_taskid, j_job_name AS name, j_group AS "group",
           j_owner AS username, j_account AS account, j_project AS project,
           j_department AS department, j_submission_time AS submission_time,
           ju_start_time AS start_time, ju_end_time AS end_time,
           ju_start_time - j_submission_time AS wait_time,
           ju_end_time - j_submission_time AS turnaround_time,
           ju_end_time - ju_start_time AS job_duration,
           ju_ru_wallclock AS wallclock_time, ju_cpu AS cpu, ju_mem AS mem, ju_io AS io,
           ju_iow AS iow, ju_maxvmem AS maxvmem
    FROM sge_job JOIN sge_job_usage ON j_id = ju_parent
    WHERE j_submission_time > TIMESTAMP '1970-01-02'
      AND ju_start_time >= j_submission_time;

CREATE VIEW view_job_times AS
    SELECT * FROM view_accounting WHERE pe_taskid = 'NONE';

-- Jobs (and array tasks, not parallel tasks) that ended, per hour.
CREATE VIEW view_jobs_completed AS
    SELECT date_trunc('hour', ju_end_time) AS time, count(*) AS completed
    FROM sge_job JOIN sge_job_usage ON j_id = ju_parent
    WHERE j_pe_taskid = 'NONE' AND ju_end_time IS NOT NULL
    GROUP BY 1;

CREATE VIEW view_job_log AS
    SELECT j_job_number AS job_number, j_task_number AS task_number,
           j_pe_taskid AS pe_taskid, j_job_name AS name, j_group AS "group",
           j_owner AS username, j_account AS account, j_project AS project,
           j_department AS department, jl_time AS time, jl_event AS event,
           jl_state AS state, jl_user AS initiator, jl_host AS host,
           jl_message AS message
    FROM sge_job JOIN sge_job_log ON j_id = jl_parent;

CREATE VIEW view_host_values AS
    SELECT h_hostname AS hostname, hv_time_start AS time_start, hv_time_end AS time_end,
           hv_variable AS variable, hv_value AS str_value, hv_dvalue AS num_value,
           hv_dconfig AS num_config
    FROM sge_host JOIN sge_host_values ON h_id = hv_parent;

CREATE VIEW view_queue_values AS
    SELECT q_qname AS qname, q_hostname AS hostname, qv_time_start AS time_start,
           qv_time_end AS time_end, qv_variable AS variable, qv_value AS str_value,
           qv_dvalue AS num_value, qv_dconfig AS num_config
    FROM sge_queue JOIN sge_queue_values ON q_id = qv_parent;

CREATE VIEW view_user_values AS
    SELECT u_user AS username, uv_time_start AS time_start, uv_time_end AS time_end,
           uv_variable AS variable, uv_value AS str_value, uv_dvalue AS num_value,
           uv_dconfig AS num_config
    FROM sge_user JOIN sge_user_values ON u_id = uv_parent;

CREATE VIEW view_group_values AS
    SELECT g_group AS groupname, gv_time_start AS time_start, gv_time_end AS time_end,
           gv_variable AS variable, gv_value AS str_value, gv_dvalue AS num_value,
           gv_dconfig AS num_config
    FROM sge_group JOIN sge_group_values ON g_id = gv_parent;

CREATE VIEW view_project_values AS
    SELECT p_project AS project, pv_time_start AS time_start, pv_time_end AS time_end,
           pv_variable AS variable, pv_value AS str_value, pv_dvalue AS num_value,
           pv_dconfig AS num_config
    FROM sge_project JOIN sge_project_values ON p_id = pv_parent;

CREATE VIEW view_department_values AS
    SELECT d_department AS department, dv_time_start AS time_start,
           dv_time_end AS time_end, dv_variable AS variable, dv_value AS str_value,
           dv_dvalue AS num_value, dv_dconfig AS num_config
    FROM sge_department JOIN sge_department_values ON d_id = dv_parent;

INSERT INTO sge_version (v_id, v_version, v_time) VALUES (1, '6.0', current_timestamp AT TIME ZONE 'UTC');
