-- title: Wait time distribution
-- about: Jobs by how long they waited from submission to start. The HTML page charts it.
-- param: since = 1970-01-01 -- only jobs started at or after this time
WITH bins (bin, wait_time) AS (
    VALUES (0, '< 10 s'), (1, '10 s - 1 min'), (2, '1 - 10 min'), (3, '10 min - 1 h'),
           (4, '1 - 6 h'), (5, '6 - 24 h'), (6, '>= 1 day')
), waits AS (
    SELECT CASE WHEN w < 10 THEN 0 WHEN w < 60 THEN 1 WHEN w < 600 THEN 2
                WHEN w < 3600 THEN 3 WHEN w < 21600 THEN 4 WHEN w < 86400 THEN 5
                ELSE 6 END AS bin
    FROM (SELECT epoch(wait_time) AS w FROM view_job_times
          WHERE start_time >= $since::TIMESTAMP)
)
SELECT bins.wait_time, count(waits.bin) AS jobs
FROM bins LEFT JOIN waits ON waits.bin = bins.bin
GROUP BY bins.bin, bins.wait_time
ORDER BY bins.bin
