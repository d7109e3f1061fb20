-- Operators run the deployment: they see every tenant's queue totals and the engine nodes'
-- hosts on the cluster page. Tenant roles (even owner) see only their own tenant's numbers.
-- Set with `belfry admin set-operator --email <e-mail>`.
ALTER TABLE users ADD COLUMN is_operator boolean NOT NULL DEFAULT false;
