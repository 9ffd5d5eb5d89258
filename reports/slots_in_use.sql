-- title: Slots in use per queue
-- about: How many slots finished jobs held in each cluster queue, from every moment this
-- about: changed: one row per change. Running jobs are not in it (they have no accounting
-- about: record yet). The HTML page charts it.
WITH jobs AS (
    SELECT ju_qname AS queue, ju_start_time AS started, ju_end_time AS ended, ju_slots AS slots
    FROM sge_job JOIN sge_job_usage ON ju_parent = j_id
    WHERE j_pe_taskid = 'NONE' AND ju_start_time IS NOT NULL AND ju_end_time IS NOT NULL
), changes AS (
    SELECT queue, started AS time, slots AS delta FROM jobs
    UNION ALL
    SELECT queue, ended, -slots FROM jobs
)
SELECT time, queue, sum(sum(delta)) OVER (PARTITION BY queue ORDER BY time) AS slots
FROM changes
GROUP BY time, queue
ORDER BY time, queue
