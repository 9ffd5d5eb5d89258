-- title: Wait time percentiles
-- about: How long jobs waited from submission to start, in seconds, per project and over all
-- about: projects (the last row): mean, median, 90th and 99th percentile, longest.
-- param: since = 1970-01-01 -- only jobs started at or after this time
SELECT CASE WHEN grouping(project) = 1 THEN '(all)' ELSE project END AS project,
       count(*) AS jobs,
       avg(epoch(wait_time)) AS mean,
       quantile_disc(epoch(wait_time)::BIGINT, 0.5) AS p50,
       quantile_disc(epoch(wait_time)::BIGINT, 0.9) AS p90,
       quantile_disc(epoch(wait_time)::BIGINT, 0.99) AS p99,
       max(epoch(wait_time)::BIGINT) AS max
FROM view_job_times
WHERE start_time >= $since::TIMESTAMP
GROUP BY GROUPING SETS ((project), ())
ORDER BY grouping(project), project
