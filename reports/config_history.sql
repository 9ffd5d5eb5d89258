-- title: Configuration history
-- about: Every change of a configuration object (queue, pe, userset, hostgroup, project,
-- about: exechost, host_conf, rqs, sched_conf, global_conf, managers, operators, adminhosts,
-- about: submithosts, complexes), oldest first: added, modified or deleted, and what a
-- about: modification changed: an object's fields, or a list's members (+added, -removed,
-- about: ~changed; a complex by its name). The objects themselves: view_config_history
-- about: and config_as_of(moment).
-- param: since = 1970-01-01 -- only changes at or after this time (UTC)
-- param: kind = % -- only objects of this kind (a LIKE pattern; % for every kind)
-- param: name = % -- only objects of this name (a LIKE pattern; % for every name)
WITH versions AS (
    SELECT id, time, kind, name, deleted, body,
           lag(body) OVER (PARTITION BY kind, name ORDER BY time, id) AS before
    FROM view_config_history
)
SELECT time, kind, name,
       CASE WHEN deleted THEN 'deleted' WHEN before IS NULL THEN 'added'
            ELSE 'modified' END AS change,
       CASE WHEN deleted OR before IS NULL THEN NULL
            WHEN json_type(body) = 'OBJECT' AND json_type(before) = 'OBJECT' THEN
                (SELECT string_agg(coalesce(now.key, was.key), ','
                                   ORDER BY coalesce(now.key, was.key))
                 FROM json_each(body) now FULL JOIN json_each(before) was
                      ON now.key = was.key
                 WHERE now.value IS DISTINCT FROM was.value)
            WHEN json_type(body) = 'ARRAY' AND json_type(before) = 'ARRAY' THEN
                (SELECT string_agg(sign || label, ',' ORDER BY label)
                 FROM (SELECT label, CASE WHEN count(*) > 1 THEN '~' ELSE min(sign) END
                                         AS sign
                       FROM (SELECT '+' AS sign,
                                    coalesce(json_extract_string(value, '$.name'),
                                             json_extract_string(value, '$')) AS label
                             FROM json_each(body)
                             WHERE value NOT IN (SELECT value FROM json_each(before))
                             UNION ALL
                             SELECT '-',
                                    coalesce(json_extract_string(value, '$.name'),
                                             json_extract_string(value, '$'))
                             FROM json_each(before)
                             WHERE value NOT IN (SELECT value FROM json_each(body)))
                       GROUP BY label))
            ELSE '(whole)' END AS changed
FROM versions
WHERE time >= $since::TIMESTAMP AND kind LIKE $kind AND name LIKE $name
ORDER BY time, id
