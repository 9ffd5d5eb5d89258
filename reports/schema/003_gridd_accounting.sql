-- gridd's additions to ARCo's model: what it takes to give back every accounting(5)
-- record as written, and to ingest exactly once.
--
-- ARCo keeps no category and no AR submission time per usage row; accounting(5) has both.
-- The `accounting` view is the file's record, one row per line, columns in file order
-- (what qacct reads); everything else should prefer ARCo's views.

ALTER TABLE sge_job_usage ADD COLUMN ju_category VARCHAR;
ALTER TABLE sge_job_usage ADD COLUMN ju_ar_submission_time TIMESTAMP;

-- Outbox sequence numbers of the master whose records are in: a batch re-sent after a
-- crash is filtered against this in the transaction that inserts it.
CREATE TABLE gridd_ingested_seq (seq BIGINT NOT NULL);

-- A file read by `gridd dbwriter`: how far (bytes and lines), and the size and hash of
-- its head when first read, which tell the same file grown from a new one.
ALTER TABLE sge_checkpoint ADD COLUMN ch_file VARCHAR;
ALTER TABLE sge_checkpoint ADD COLUMN ch_offset BIGINT;
ALTER TABLE sge_checkpoint ADD COLUMN ch_head_size BIGINT;
ALTER TABLE sge_checkpoint ADD COLUMN ch_head_hash VARCHAR;

CREATE VIEW accounting AS
    SELECT ju_qname AS qname, ju_hostname AS hostname, j_group AS "group",
           j_owner AS owner, j_job_name AS job_name, j_job_number AS job_number,
           j_account AS account, j_priority AS priority,
           j_submission_time AS submission_time, ju_start_time AS start_time,
           ju_end_time AS end_time, ju_failed AS failed, ju_exit_status AS exit_status,
           ju_ru_wallclock AS ru_wallclock, ju_ru_utime AS ru_utime,
           ju_ru_stime AS ru_stime, ju_ru_maxrss AS ru_maxrss, ju_ru_ixrss AS ru_ixrss,
           ju_ru_issmrss AS ru_ismrss, ju_ru_idrss AS ru_idrss, ju_ru_isrss AS ru_isrss,
           ju_ru_minflt AS ru_minflt, ju_ru_majflt AS ru_majflt, ju_ru_nswap AS ru_nswap,
           ju_ru_inblock AS ru_inblock, ju_ru_outblock AS ru_oublock,
           ju_ru_msgsnd AS ru_msgsnd, ju_ru_msgrcv AS ru_msgrcv,
           ju_ru_nsignals AS ru_nsignals, ju_ru_nvcsw AS ru_nvcsw,
           ju_ru_nivcsw AS ru_nivcsw, j_project AS project, j_department AS department,
           ju_granted_pe AS granted_pe, ju_slots AS slots, j_task_number AS task_number,
           ju_cpu AS cpu, ju_mem AS mem, ju_io AS io, ju_category AS category,
           ju_iow AS iow, j_pe_taskid AS pe_taskid, ju_maxvmem AS maxvmem,
           ju_ar_number AS arid, ju_ar_submission_time AS ar_submission_time
    FROM sge_job JOIN sge_job_usage ON j_id = ju_parent;

INSERT INTO sge_version (v_id, v_version, v_time)
    VALUES (3, '8.1.9', current_timestamp AT TIME ZONE 'UTC');
