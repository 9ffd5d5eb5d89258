-- title: Wallclock and CPU per host
-- about: Jobs, wallclock (s) and CPU (s) of the finished jobs on each execution host, and the
-- about: CPU time per wallclock second (above 1 when a job kept several cores busy).
-- param: since = 1970-01-01 -- only jobs started at or after this time
SELECT ju_hostname AS hostname,
       count(*) FILTER (WHERE j_pe_taskid = 'NONE') AS jobs,
       sum(ju_ru_wallclock) AS wallclock,
       sum(ju_cpu) AS cpu,
       sum(ju_cpu) / nullif(sum(ju_ru_wallclock), 0) AS cpu_per_wallclock
FROM sge_job JOIN sge_job_usage ON ju_parent = j_id
WHERE ju_start_time >= $since::TIMESTAMP
GROUP BY hostname
ORDER BY hostname
