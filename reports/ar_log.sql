-- title: Advance reservation log
-- about: The state changes of one advance reservation, oldest first.
-- param: ar_number -- the AR's number
SELECT ar_number, time, event, state, message
FROM view_ar_log
WHERE ar_number = $ar_number::BIGINT
ORDER BY time
