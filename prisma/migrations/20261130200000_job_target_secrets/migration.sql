-- Write-only target fields (CONTRACT.md §6): jobs.target keeps every secret masked as '***';
-- the secrets themselves are sealed (AES-256-GCM under the encryption keyring, bound to the
-- tenant) into target_secrets. Rows written before keep theirs in target until they are next
-- changed or `belfry admin rotate-encryption-key` runs; until then the API masks them on read.
ALTER TABLE jobs ADD COLUMN target_secrets bytea;
