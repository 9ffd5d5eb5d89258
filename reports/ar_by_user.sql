-- title: Advance reservations by user
-- about: The advance reservations one user submitted.
-- param: ar_owner -- the user who submitted them
SELECT ar_number, ar_submission_time AS submission_time
FROM sge_ar
WHERE ar_owner = $ar_owner
ORDER BY ar_number
