-- POST /api/v1/jobs/batch honours Idempotency-Key like a single create: the key remembers every
-- job the batch created, in order (job_id keeps the first). Empty for a single create.
ALTER TABLE idempotency_keys ADD COLUMN job_ids text[] NOT NULL DEFAULT '{}';
