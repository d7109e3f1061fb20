-- A run claimed by an engine's worker was listed for the reaper in running_runs: a row inserted
-- by the claim and deleted by the completion, two writes per run beside the run's own — ~7 % of
-- a 100K herd's time and ~10 % of its database work after the due time (bench/results/README,
-- stop 39). The run already has a row in open_runs from its materializing until it finishes;
-- the claim now writes its lease there instead, and a finished run's row is deleted anyway.
--
-- leased_until is in no index, so the claim's write is a HOT update when the row's page has room:
-- pages are filled to half from now on (the table holds open runs only: a few pages per thousand).
-- The reaper reads open_runs sequentially for passed leases (narrow rows), as the sweep of
-- left-behind rows already does. NULL: not claimed by an engine (pending, waiting for a retry,
-- or listed in running_runs: pull runs, and runs claimed by the previous version).
ALTER TABLE open_runs ADD COLUMN leased_until timestamptz;
ALTER TABLE open_runs SET (fillfactor = 50);
