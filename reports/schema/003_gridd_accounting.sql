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

-- The stream's inbox. A batch from the accounting actor is stored as it came, in one row,
-- and folded into ARCo's tables many batches at a time: DuckDB spends milliseconds per
-- statement, and turning a batch into ARCo's rows takes a dozen of them.
--
-- A seq is ingested once it is in gridd_ingested_seq or in a batch here; folding moves
-- a batch's records into the tables and its seqs into the ledger in one transaction.
CREATE TABLE gridd_inbox (
    first_seq BIGINT NOT NULL,
    last_seq  BIGINT NOT NULL,
    records   INTEGER NOT NULL,
    received  DOUBLE NOT NULL,   -- epoch seconds, the writer's clock
    seqs      VARCHAR NOT NULL,  -- the batch's seqs, one per line
    lines     VARCHAR NOT NULL   -- its reporting(5) lines, in the same order
);

-- `accounting` holds the records still in the inbox too, so qacct never waits for a fold.
-- Their fields are read here as the writer reads them (gridd/accounting/record_sql.py,
-- accounting(5)'s layout; a category holding ':' shifts the fields after it by e); a
-- malformed record shows (with NULLs) until the fold leaves it out: a filter on the split
-- fields would make DuckDB split every line once per condition.
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
    FROM sge_job JOIN sge_job_usage ON j_id = ju_parent
    UNION ALL
    SELECT f[1], f[2], f[3], f[4], f[5], TRY_CAST(f[6] AS BIGINT), f[7],
           TRY_CAST(f[8] AS INTEGER),
           make_timestamp(NULLIF(TRY_CAST(f[9] AS BIGINT), 0) * 1000000),
           make_timestamp(NULLIF(TRY_CAST(f[10] AS BIGINT), 0) * 1000000),
           make_timestamp(NULLIF(TRY_CAST(f[11] AS BIGINT), 0) * 1000000),
           TRY_CAST(f[12] AS INTEGER), TRY_CAST(f[13] AS INTEGER), TRY_CAST(f[14] AS BIGINT),
           TRY_CAST(f[15] AS DOUBLE), TRY_CAST(f[16] AS DOUBLE), TRY_CAST(f[17] AS DOUBLE),
           TRY_CAST(f[18] AS BIGINT), TRY_CAST(f[19] AS BIGINT), TRY_CAST(f[20] AS BIGINT),
           TRY_CAST(f[21] AS BIGINT), TRY_CAST(f[22] AS BIGINT), TRY_CAST(f[23] AS BIGINT),
           TRY_CAST(f[24] AS BIGINT), TRY_CAST(f[25] AS DOUBLE), TRY_CAST(f[26] AS BIGINT),
           TRY_CAST(f[27] AS BIGINT), TRY_CAST(f[28] AS BIGINT), TRY_CAST(f[29] AS BIGINT),
           TRY_CAST(f[30] AS BIGINT), TRY_CAST(f[31] AS BIGINT), f[32], f[33], f[34],
           TRY_CAST(f[35] AS INTEGER), TRY_CAST(f[36] AS BIGINT), TRY_CAST(f[37] AS DOUBLE),
           TRY_CAST(f[38] AS DOUBLE), TRY_CAST(f[39] AS DOUBLE),
           array_to_string(f[40:40 + e], ':'), TRY_CAST(f[41 + e] AS DOUBLE), f[42 + e],
           TRY_CAST(f[43 + e] AS DOUBLE),
           CASE WHEN n = 43 THEN 0 ELSE TRY_CAST(f[44 + e] AS BIGINT) END,
           CASE WHEN n = 43 THEN NULL
                ELSE make_timestamp(NULLIF(TRY_CAST(f[45 + e] AS BIGINT), 0) * 1000000) END
    FROM (SELECT f, len(f) AS n, CASE WHEN len(f) = 43 THEN 0 ELSE len(f) - 45 END AS e
          FROM (SELECT string_split(substr(line, strpos(line, ':acct:') + 6), ':') AS f
                FROM (SELECT unnest(string_split(lines, chr(10))) AS line FROM gridd_inbox)
                WHERE split_part(line, ':', 2) = 'acct'));

INSERT INTO sge_version (v_id, v_version, v_time)
    VALUES (3, '8.1.9', current_timestamp AT TIME ZONE 'UTC');
