-- A seq alone does not name a record: `gridd spool restore` puts the master's counters
-- back to the backup's, and it then gives the seqs out again, to other records (as it
-- gives job ids out again, as Grid Engine does). The ledger keeps each record's seq with
-- the digest of its line (the first 16 hex digits of its MD5), and a record is known when
-- both match: a batch re-sent after a crash carries the same lines. Rows from before this
-- version have no digest and stand for any record of their seq, as they did.

ALTER TABLE gridd_ingested_seq ADD COLUMN digest VARCHAR;

INSERT INTO sge_version (v_id, v_version, v_time)
    VALUES (5, '8.1.9', current_timestamp AT TIME ZONE 'UTC');
