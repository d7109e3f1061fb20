-- Room on every page of runs for a run's whole life in place: fillfactor 50 (was 70, migration
-- 20261202000000_hot_claims).
--
-- A run's row grows twice after the scheduler inserts it: its claim adds the worker, the lease
-- and the start times, and the completion that ends it the last attempt's outcome, request
-- headers included (migration 20261207060000_final_attempt_on_run). In a herd (PostgreSQL 18.4)
-- a pending run's row is 184 bytes, a running one's 216, a succeeded one's 352. With fillfactor
-- 70 a page holds about 30 pending runs, whose succeeded rows take 10.7 kB: more than a page.
-- About a fifth of a herd's claims and completions (7,513 of 34,016 updates of a 20K herd) could
-- not put the new row version on its page and wrote it on another, with a new entry in every
-- index of runs (three WAL records a run instead of one); the table ended at 1,149 pages for
-- 20,000 runs. With fillfactor 50 a page holds about 21 pending runs, whose succeeded rows fit:
-- 1,014 of 36,258 updates left their page, and the table ended at 1,051 pages. In 100K herds in
-- turns, PostgreSQL's CPU a run from due fell 13 % and the herd's WAL 7 % (bench/results/README,
-- What limits it now, stop 51).
--
-- Only pages written from now on get the room: the settings of existing partitions change (no
-- rewrite), and the daily partitions created from now on have it from the start.
SET LOCAL lock_timeout = '10s';

DO $$
DECLARE
  part record;
BEGIN
  FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = 'runs'::regclass LOOP
    EXECUTE format('ALTER TABLE %I SET (fillfactor = 50)', part.relname);
  END LOOP;
END
$$;

-- belfry_ensure_history_partitions (20261202000000), creating the runs partitions with that room.
CREATE OR REPLACE FUNCTION belfry_ensure_history_partitions(from_day date, to_day date) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  d       date := from_day;
  created integer := 0;
  lo      timestamptz;
  hi      timestamptz;
  tbl     text;
BEGIN
  WHILE d <= to_day LOOP
    lo := d::timestamp AT TIME ZONE 'UTC';
    hi := (d + 1)::timestamp AT TIME ZONE 'UTC';
    FOREACH tbl IN ARRAY ARRAY['runs', 'run_attempts'] LOOP
      IF to_regclass(format('%I', tbl || '_' || to_char(d, 'YYYYMMDD'))) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)%s',
                       tbl || '_' || to_char(d, 'YYYYMMDD'), tbl, lo, hi,
                       CASE WHEN tbl = 'runs' THEN ' WITH (fillfactor = 50)' ELSE '' END);
        created := created + 1;
      END IF;
    END LOOP;
    d := d + 1;
  END LOOP;
  RETURN created;
END;
$$;
