-- title: Accounting per AR
-- about: CPU (s), memory (GB s) and I/O (GB) used by the jobs that ran in each advance
-- about: reservation, by month of the jobs' start.
-- param: since = 1970-01-01 -- only jobs started at or after this time (ARCo's query looked at the last year)
SELECT date_trunc('month', start_time)::DATE AS month,
       ar_number,
       sum(cpu) AS cpu,
       sum(mem) AS mem,
       sum(io) AS io
FROM view_accounting
WHERE ar_number > 0
  AND start_time >= $since::TIMESTAMP
GROUP BY month, ar_number
ORDER BY month, ar_number
