-- title: Number of jobs completed per AR
-- about: Finished jobs (array tasks count one each) of every advance reservation, by day of
-- about: their start.
-- param: since = 1970-01-01 -- only jobs started at or after this time (ARCo's query looked at the last year)
SELECT date_trunc('day', start_time)::DATE AS day,
       ar_number,
       count(job_number) AS jobs
FROM view_job_times
WHERE ar_number > 0
  AND start_time >= $since::TIMESTAMP
GROUP BY day, ar_number
ORDER BY day, ar_number
