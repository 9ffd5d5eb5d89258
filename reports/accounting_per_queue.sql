-- title: Accounting per queue
-- about: Jobs, wallclock (s), CPU (s), memory (GB s) and I/O (GB) of the finished jobs of each
-- about: cluster queue, by day, week, month or year of their start. Parallel tasks add their
-- about: usage, not jobs.
-- param: period = month -- day, week, month or year
-- param: since = 1970-01-01 -- only jobs started at or after this time
SELECT date_trunc($period, ju_start_time)::DATE AS period,
       ju_qname AS queue,
       count(*) FILTER (WHERE j_pe_taskid = 'NONE') AS jobs,
       sum(ju_ru_wallclock) AS wallclock,
       sum(ju_cpu) AS cpu,
       sum(ju_mem) AS mem,
       sum(ju_io) AS io
FROM sge_job JOIN sge_job_usage ON ju_parent = j_id
WHERE ju_start_time >= $since::TIMESTAMP
GROUP BY period, queue
ORDER BY period, queue
