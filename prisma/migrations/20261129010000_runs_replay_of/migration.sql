-- The dead letter hides runs that were already replayed (NOT EXISTS on replay_of); index the
-- few runs that are replays so that check stays a lookup however large a tenant's history.
CREATE INDEX runs_replay_of_idx ON runs (replay_of) WHERE replay_of IS NOT NULL;
