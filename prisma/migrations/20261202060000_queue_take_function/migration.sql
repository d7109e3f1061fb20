-- A claim's take of run messages (packages/db/src/queue/take.ts, takeRound) as a function, so
-- that each database connection plans it once instead of on every call (issue 16, ask 5).
-- PL/pgSQL keeps a statement's plan per connection; with force_generic_plan it is the generic
-- plan from the first call. The statement finds its messages by key from arrays (InitPlans), so
-- the generic plan is the same probe by key whatever the planner guesses for the room; and
-- pgboss.job has one partition (job_common, every queue being created with QUEUE_OPTIONS), so
-- a generic plan locks and opens no more than a custom one.
--
-- pg_stat_statements on 20,000-run quick herds (PostgreSQL 18.4, track_planning on): the take ran
-- 568 times and its planning cost 1,177 ms against 498 ms of execution (~2 ms a call to plan four
-- references to pgboss.job, each with the partial indexes of job_common to consider); as this
-- function, 945–957 ms for ~590 calls, planning included.
--
-- The claim and the completion of runs were tried the same way and left as they are: over the
-- partitions of runs a generic plan locks and opens every partition at each call (pruning comes
-- after), which cost more than their planning saved (the claim 2,072 ms of planning and
-- execution as a statement, 2,563 ms as a function) and would grow with the days of history kept.
--
-- The statement is takeRound's, with its parameters as the function's: the queue's name, the
-- room in runs, and the messages a previous round of the same take looked past. pgboss.job need
-- not exist yet: a PL/pgSQL body is only parsed here, and resolved at its first call.
CREATE FUNCTION belfry_take_round(queue text, room int, passed uuid[])
RETURNS TABLE (take_candidates text[], take_offered int, take_messages json)
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH first AS (
    SELECT j.id, j.priority, j.created_on, j.start_after, COALESCE(jsonb_array_length(j.data->'runIds'), 1) AS n
      FROM pgboss.job j
     WHERE j.name = $1 AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
       AND j.id <> ALL ($3)
     ORDER BY j.priority DESC, j.created_on, j.start_after
     LIMIT $2
  ), candidates AS (
    SELECT w.id, w.n FROM (
      SELECT f.id, f.n, sum(f.n) OVER (ORDER BY f.priority DESC, f.created_on, f.start_after, f.id ROWS UNBOUNDED PRECEDING) - f.n AS before
        FROM first f) w
     WHERE w.before < $2
  ), locked AS (
    SELECT j.id, j.data, j.priority, j.created_on, j.start_after, COALESCE(jsonb_array_length(j.data->'runIds'), 1) AS n
      FROM pgboss.job j
     WHERE j.name = $1 AND j.id = ANY (ARRAY(SELECT c.id FROM candidates c))
       AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
       FOR UPDATE OF j SKIP LOCKED
  ), counted AS (
    SELECT l.id, l.data, l.priority, l.created_on, l.start_after, l.n,
           sum(l.n) OVER (ORDER BY l.priority DESC, l.created_on, l.start_after, l.id ROWS UNBOUNDED PRECEDING) - l.n AS before
      FROM locked l
  ), whole AS (
    DELETE FROM pgboss.job j
     WHERE j.name = $1 AND j.id = ANY (ARRAY(SELECT k.id FROM counted k WHERE k.before + k.n <= $2))
    RETURNING j.id, j.data, j.priority, j.created_on, j.start_after,
              CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
  ), cut AS (
    -- the one message that does not fit whole: its first runs are taken, the rest stay queued
    SELECT k.id, k.data, k.priority, k.created_on, k.start_after, ($2 - k.before)::int AS take
      FROM counted k WHERE k.before < $2 AND k.before + k.n > $2
  ), rest AS (
    UPDATE pgboss.job j
       SET data = jsonb_set(j.data, '{runIds}',
             (SELECT jsonb_agg(e.run ORDER BY e.i) FROM jsonb_array_elements(j.data->'runIds') WITH ORDINALITY AS e(run, i)
               WHERE e.i > c.take))
      FROM cut c
     WHERE j.name = $1 AND j.id = ANY (ARRAY(SELECT u.id FROM cut u)) AND j.id = c.id
    RETURNING j.id, CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
  ), messages AS (
    SELECT w.id, w.data, w.priority, w.created_on, w.start_after, w.retry_count, NULL::int AS take FROM whole w
    UNION ALL
    SELECT c.id, c.data, c.priority, c.created_on, c.start_after, r.retry_count, c.take FROM cut c JOIN rest r ON r.id = c.id
  )
  SELECT (SELECT array_agg(c.id::text) FROM candidates c),
         (SELECT COALESCE(sum(c.n), 0)::int FROM candidates c),
         (SELECT json_agg(json_build_object('id', m.id, 'data', m.data, 'retry_count', m.retry_count, 'take', m.take)
                          ORDER BY m.priority DESC, m.created_on, m.start_after, m.id)
            FROM messages m);
END
$$;

