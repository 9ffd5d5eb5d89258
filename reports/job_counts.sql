-- title: Job counts
-- about: Finished jobs (array tasks count one each) by day, week, month or year of their end:
-- about: all of them, those that exited 0, those Grid Engine could not start or finish
-- about: (failed), and those that ran but exited with another status. A job that never started
-- about: counts at its submission.
-- param: period = month -- day, week, month or year
-- param: since = 1970-01-01 -- only jobs that ended at or after this time
SELECT date_trunc($period, ended)::DATE AS period,
       count(*) AS jobs,
       count(*) FILTER (WHERE ju_failed = 0 AND ju_exit_status = 0) AS succeeded,
       count(*) FILTER (WHERE ju_failed <> 0) AS failed,
       count(*) FILTER (WHERE ju_failed = 0 AND ju_exit_status <> 0) AS exit_nonzero
FROM (SELECT coalesce(ju_end_time, j_submission_time) AS ended, ju_failed, ju_exit_status
      FROM sge_job JOIN sge_job_usage ON ju_parent = j_id
      WHERE j_pe_taskid = 'NONE')
WHERE ended >= $since::TIMESTAMP
GROUP BY period
ORDER BY period
