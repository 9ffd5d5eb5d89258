-- The configuration's history (gridd's; ARCo has none): every version of every
-- configuration object the master committed to its spool, with the time of the change,
-- so that an analyst can ask what a queue looked like last Tuesday. It is the spooling
-- framework's "historical data (with timestamp)", kept whatever reporting_params say.
--
-- A row is one change of one object, named as the master spools it: queue, pe, userset,
-- hostgroup, project, exechost, host_conf and rqs by their names; sched_conf,
-- global_conf, managers, operators, adminhosts, submithosts and complexes, of which a
-- cell has one, by the name 'cell'. The body is the object as JSON (the master's
-- encoding of it, the same fields it spools), or NULL where the change deleted it. A new
-- cell records every object once, so its history starts complete. Times are UTC with
-- microseconds; cfh_id orders the changes (those made at one time too).

CREATE TABLE sge_config_history (
    cfh_id      BIGINT NOT NULL,
    cfh_time    TIMESTAMP NOT NULL,
    cfh_kind    VARCHAR NOT NULL,
    cfh_name    VARCHAR NOT NULL,
    cfh_deleted BOOLEAN NOT NULL,
    cfh_body    JSON               -- NULL when the change deleted the object
);

-- Every version with the time it stood: from its change (time) until the next change of
-- the same object (valid_until; NULL while it is the current one). What all.q looked like
-- at a time T (UTC):
--
--     SELECT body FROM view_config_history
--     WHERE kind = 'queue' AND name = 'all.q' AND NOT deleted
--       AND time <= T AND (valid_until IS NULL OR valid_until > T)
--
-- or, the same, SELECT body FROM config_as_of(T) WHERE kind = 'queue' AND name = 'all.q';
-- a field of it: json_extract_string(body, '$.slots') (DuckDB's JSON functions).
CREATE VIEW view_config_history AS
    SELECT cfh_id AS id, cfh_time AS time, cfh_kind AS kind, cfh_name AS name,
           cfh_deleted AS deleted, cfh_body AS body,
           lead(cfh_time) OVER (PARTITION BY cfh_kind, cfh_name
                                ORDER BY cfh_time, cfh_id) AS valid_until
    FROM sge_config_history;

-- The whole configuration as it stood at a moment: one row per object that existed then,
-- with the time of the change that made it so.
CREATE MACRO config_as_of(moment) AS TABLE
    SELECT kind, name, time AS changed, body
    FROM view_config_history
    WHERE time <= CAST(moment AS TIMESTAMP)
      AND (valid_until IS NULL OR valid_until > CAST(moment AS TIMESTAMP))
      AND NOT deleted;

INSERT INTO sge_version (v_id, v_version, v_time)
    VALUES (4, '8.1.9', current_timestamp AT TIME ZONE 'UTC');
