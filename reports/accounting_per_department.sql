-- title: Accounting per department
-- about: Jobs, wallclock (s), CPU (s), memory (GB s) and I/O (GB) of each department's finished jobs, by
-- about: day, week, month or year of their start. Parallel tasks add their usage, not jobs.
-- param: period = month -- day, week, month or year
-- param: since = 1970-01-01 -- only jobs started at or after this time
SELECT date_trunc($period, start_time)::DATE AS period,
       department,
       count(*) FILTER (WHERE pe_taskid = 'NONE') AS jobs,
       sum(wallclock_time) AS wallclock,
       sum(cpu) AS cpu,
       sum(mem) AS mem,
       sum(io) AS io
FROM view_accounting
WHERE start_time >= $since::TIMESTAMP
GROUP BY period, department
ORDER BY period, department
