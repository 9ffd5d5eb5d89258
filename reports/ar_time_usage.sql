-- title: Advance reservation time usage
-- about: For each AR whose end time was reached: how long it held its resources, the summed
-- about: run time of the jobs in it, and the reserved time no job used.
SELECT ar_number,
       job_duration,
       ar_duration,
       ar_duration - coalesce(job_duration, INTERVAL 0 SECOND) AS unused_time
FROM view_ar_time_usage
WHERE ar_number IN (SELECT ar_number FROM view_ar_log WHERE event = 'TERMINATED')
ORDER BY ar_number
