-- Advance reservations (Grid Engine 6.2): the AR tables, the AR number of every job usage
-- row, and the views over them, after the AR specification's appendix "ARCo database
-- model". An AR is known by its number and submission time (numbers are reused).
--
-- DuckDB cannot sum INTERVALs, so view_ar_time_usage sums seconds and turns the total
-- back into an INTERVAL; its columns and meaning are the appendix's.

CREATE SEQUENCE sge_ar_seq;
CREATE TABLE sge_ar (
    ar_id              BIGINT NOT NULL DEFAULT nextval('sge_ar_seq'),
    ar_number          BIGINT NOT NULL,
    ar_owner           VARCHAR,
    ar_submission_time TIMESTAMP
);

CREATE SEQUENCE sge_ar_attribute_seq;
CREATE TABLE sge_ar_attribute (
    ara_id         BIGINT NOT NULL DEFAULT nextval('sge_ar_attribute_seq'),
    ara_parent     BIGINT NOT NULL,
    ara_curr_time  TIMESTAMP,
    ara_name       VARCHAR,
    ara_account    VARCHAR,
    ara_start_time TIMESTAMP,
    ara_end_time   TIMESTAMP,
    ara_granted_pe VARCHAR
);

CREATE SEQUENCE sge_ar_usage_seq;
CREATE TABLE sge_ar_usage (
    aru_id               BIGINT NOT NULL DEFAULT nextval('sge_ar_usage_seq'),
    aru_parent           BIGINT NOT NULL,
    aru_termination_time TIMESTAMP,
    aru_qname            VARCHAR,
    aru_hostname         VARCHAR,
    aru_slots            INTEGER
);

CREATE SEQUENCE sge_ar_log_seq;
CREATE TABLE sge_ar_log (
    arl_id      BIGINT NOT NULL DEFAULT nextval('sge_ar_log_seq'),
    arl_parent  BIGINT NOT NULL,
    arl_time    TIMESTAMP,
    arl_event   VARCHAR,
    arl_state   VARCHAR,
    arl_host    VARCHAR,
    arl_message VARCHAR
);

-- The resources granted to the AR (name=value of the ar_attr record), one row each.
CREATE SEQUENCE sge_ar_resource_usage_seq;
CREATE TABLE sge_ar_resource_usage (
    arru_id       BIGINT NOT NULL DEFAULT nextval('sge_ar_resource_usage_seq'),
    arru_parent   BIGINT NOT NULL,
    arru_variable VARCHAR,
    arru_value    VARCHAR
);

ALTER TABLE sge_job_usage ADD COLUMN ju_ar_number BIGINT DEFAULT 0;

DROP VIEW view_job_times;
DROP VIEW view_accounting;

CREATE VIEW view_accounting AS
    SELECT j_job_number AS job_number, j_task_number AS task_number,
           j_pe_taskid AS pe_taskid, j_job_name AS name, j_group AS "group",
           j_owner AS username, j_account AS account, j_project AS project,
           j_department AS department, j_submission_time AS submission_time,
           ju_ar_number AS ar_number,
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

CREATE VIEW view_ar_attribute AS
    SELECT ar_number, ar_owner AS owner, ar_submission_time AS submission_time,
           ara_name AS name, ara_account AS account, ara_start_time AS start_time,
           ara_end_time AS end_time, ara_granted_pe AS granted_pe
    FROM sge_ar JOIN sge_ar_attribute ON ar_id = ara_parent;

CREATE VIEW view_ar_log AS
    SELECT ar_number, arl_time AS time, arl_event AS event, arl_state AS state,
           arl_message AS message
    FROM sge_ar JOIN sge_ar_log ON ar_id = arl_parent;

CREATE VIEW view_ar_usage AS
    SELECT ar_number, aru_termination_time AS termination_time, aru_qname AS queue,
           aru_hostname AS hostname, aru_slots AS slots
    FROM sge_ar JOIN sge_ar_usage ON ar_id = aru_parent;

CREATE VIEW view_ar_resource_usage AS
    SELECT ar_number, arru_variable AS variable, arru_value AS value
    FROM sge_ar JOIN sge_ar_resource_usage ON ar_id = arru_parent;

CREATE VIEW view_ar_time_usage AS
    SELECT art.ar_number AS ar_number,
           to_seconds(sum(epoch(acc.job_duration))) AS job_duration,
           art.end_time - art.start_time AS ar_duration
    FROM view_ar_attribute art LEFT JOIN view_accounting acc
         ON art.ar_number = acc.ar_number
    GROUP BY art.ar_number, ar_duration
    ORDER BY art.ar_number;

INSERT INTO sge_version (v_id, v_version, v_time)
    VALUES (2, '6.2', current_timestamp AT TIME ZONE 'UTC');
