-- title: Advance reservation attributes
-- about: The attributes of one advance reservation: one row each time they were recorded.
-- param: ar_number -- the AR's number
SELECT ar_number, owner, submission_time, name, account, start_time, end_time, granted_pe
FROM view_ar_attribute
WHERE ar_number = $ar_number::BIGINT
ORDER BY start_time, end_time
