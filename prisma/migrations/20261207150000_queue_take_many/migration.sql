-- A claim's take from all of its queues in one statement per round (packages/db/src/queue/take.ts,
-- takeFromQueues). A claim spans several queues (a node's slots come back a completion batch at a
-- time, spread over many tenants' queues: apps/engine/src/worker/claim.ts), and took from each
-- with its own calls of belfry_take_round (migration 20261202060000): a round trip, a function
-- call and the start of a plan of eight parts per queue, for a few runs each (in a 100K herd
-- about three takes a claim with 400 slots a node, six with the engine's default of 1,000).
--
-- The statement is belfry_take_round's for several queues at once: the first messages of each
-- queue not in `passed` (a LATERAL probe of the same (name, priority DESC, created_on,
-- start_after) index, limited to that queue's room in runs), the running counts partitioned by
-- queue, one lock, one DELETE and one UPDATE for them all. A queue's row is what
-- belfry_take_round returns for it; `passed` holds message ids (unique across queues), so one
-- list serves every queue of a later round. This version's engines call this function only;
-- belfry_take_round stays for the engines of the version before during an upgrade. Planned once
-- per connection (force_generic_plan, as belfry_take_round: found by key from arrays, and
-- pgboss.job has one partition).
CREATE FUNCTION belfry_take_many(queues text[], rooms int[], passed uuid[])
RETURNS TABLE (take_queue text, take_candidates text[], take_offered int, take_messages json)
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH q AS (
    SELECT q.name, q.room FROM unnest($1, $2) AS q(name, room)
  ), first AS (
    SELECT f.name, f.id, f.priority, f.created_on, f.start_after, f.n, q.room
      FROM q CROSS JOIN LATERAL (
        SELECT j.name, j.id, j.priority, j.created_on, j.start_after, COALESCE(jsonb_array_length(j.data->'runIds'), 1) AS n
          FROM pgboss.job j
         WHERE j.name = q.name AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
           AND j.id <> ALL ($3)
         ORDER BY j.priority DESC, j.created_on, j.start_after
         LIMIT q.room) f
  ), candidates AS (
    SELECT w.name, w.id, w.n FROM (
      SELECT f.name, f.id, f.n, f.room,
             sum(f.n) OVER (PARTITION BY f.name ORDER BY f.priority DESC, f.created_on, f.start_after, f.id
                            ROWS UNBOUNDED PRECEDING) - f.n AS before
        FROM first f) w
     WHERE w.before < w.room
  ), locked AS (
    SELECT j.name, j.id, j.data, j.priority, j.created_on, j.start_after, COALESCE(jsonb_array_length(j.data->'runIds'), 1) AS n
      FROM pgboss.job j
     WHERE j.name = ANY ($1) AND j.id = ANY (ARRAY(SELECT c.id FROM candidates c))
       AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
       FOR UPDATE OF j SKIP LOCKED
  ), counted AS (
    SELECT l.name, l.id, l.data, l.priority, l.created_on, l.start_after, l.n, q.room,
           sum(l.n) OVER (PARTITION BY l.name ORDER BY l.priority DESC, l.created_on, l.start_after, l.id
                          ROWS UNBOUNDED PRECEDING) - l.n AS before
      FROM locked l JOIN q ON q.name = l.name
  ), whole AS (
    DELETE FROM pgboss.job j
     WHERE j.name = ANY ($1) AND j.id = ANY (ARRAY(SELECT k.id FROM counted k WHERE k.before + k.n <= k.room))
    RETURNING j.name, j.id, j.data, j.priority, j.created_on, j.start_after,
              CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
  ), cut AS (
    -- the one message of a queue that does not fit whole: its first runs are taken, the rest stay queued
    SELECT k.name, k.id, k.data, k.priority, k.created_on, k.start_after, (k.room - k.before)::int AS take
      FROM counted k WHERE k.before < k.room AND k.before + k.n > k.room
  ), rest AS (
    UPDATE pgboss.job j
       SET data = jsonb_set(j.data, '{runIds}',
             (SELECT jsonb_agg(e.run ORDER BY e.i) FROM jsonb_array_elements(j.data->'runIds') WITH ORDINALITY AS e(run, i)
               WHERE e.i > c.take))
      FROM cut c
     WHERE j.name = ANY ($1) AND j.id = ANY (ARRAY(SELECT u.id FROM cut u)) AND j.id = c.id
    RETURNING j.id, CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
  ), messages AS (
    SELECT w.name, w.id, w.data, w.priority, w.created_on, w.start_after, w.retry_count, NULL::int AS take FROM whole w
    UNION ALL
    SELECT c.name, c.id, c.data, c.priority, c.created_on, c.start_after, r.retry_count, c.take FROM cut c JOIN rest r ON r.id = c.id
  ), offered AS (
    SELECT c.name, array_agg(c.id::text) AS ids, sum(c.n)::int AS n FROM candidates c GROUP BY c.name
  ), taken AS (
    SELECT m.name,
           json_agg(json_build_object('id', m.id, 'data', m.data, 'retry_count', m.retry_count, 'take', m.take)
                    ORDER BY m.priority DESC, m.created_on, m.start_after, m.id) AS messages
      FROM messages m GROUP BY m.name
  )
  SELECT q.name, o.ids, COALESCE(o.n, 0), t.messages
    FROM q LEFT JOIN offered o ON o.name = q.name LEFT JOIN taken t ON t.name = q.name;
END
$$;
