// Limits: what one tenant may take of what all tenants share (docs/limits.md). Jobs, scheduled
// runs per minute (the sum of runsPerMinute over active jobs), API keys, and per user the
// workspaces they own. A change that would pass a limit is refused with 422 quota_exceeded,
// naming the limit, its value and the usage before the change.
//
// The tenant's job usage is kept on its row by triggers on jobs (job_count, scheduled_rate,
// unrated_jobs: migration 20261202010000_tenant_job_usage), so a check reads three columns
// instead of counting the tenant's jobs. Checks lock the tenant row (FOR NO KEY UPDATE, which does
// not block the foreign-key checks of runs and jobs being inserted) inside the caller's
// transaction, and so does the triggers' update of the counters, so two requests racing for the
// last slot cannot both take it.
import { runsPerMinute } from '@belfry/core';
import { specOf } from '@belfry/db';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import { authorize } from '../security/scopes';
import type { Queryable } from '../sql/tx';
import { tenantJobsSql } from './job-page';

type JobUsage = { jobs: number; runsPerMinute: number };

export interface TenantLimits {
  maxJobs: number;
  maxRunsPerMinute: number;
  maxConcurrency: number;
  rateLimitPerSecond: number;
  maxApiKeys: number;
}

export interface LimitsView extends TenantLimits {
  usage: { jobs: number; runsPerMinute: number; apiKeys: number };
}

export const LIMIT_FLAGS = {
  maxJobs: 'max_jobs',
  maxRunsPerMinute: 'max_runs_per_minute',
  maxConcurrency: 'max_concurrency',
  rateLimitPerSecond: 'rate_limit_per_second',
  maxApiKeys: 'max_api_keys',
} as const satisfies Record<keyof TenantLimits, string>;

// Sums of fractions (1/1440 for a daily job) are compared with a little slack.
const EPSILON = 1e-9;

interface LimitRow {
  max_jobs: number;
  max_runs_per_minute: number;
  max_concurrency: number;
  rate_limit_per_second: number;
  max_api_keys: number;
}

function toLimits(row: LimitRow): TenantLimits {
  return {
    maxJobs: row.max_jobs,
    maxRunsPerMinute: row.max_runs_per_minute,
    maxConcurrency: row.max_concurrency,
    rateLimitPerSecond: row.rate_limit_per_second,
    maxApiKeys: row.max_api_keys,
  };
}

interface UsageRow {
  seq: number;
  job_count: number;
  scheduled_rate: number;
  unrated_jobs: number;
}

async function readLimits(
  db: Queryable,
  tenantId: string,
  lock: boolean,
): Promise<{ limits: TenantLimits; seq: number; usage: JobUsage; unrated: number }> {
  const { rows } = await db.query<LimitRow & UsageRow>(
    `SELECT seq, max_jobs, max_runs_per_minute, max_concurrency, rate_limit_per_second, max_api_keys,
            job_count, scheduled_rate::float8 AS scheduled_rate, unrated_jobs
       FROM tenants WHERE id = $1 ${lock ? 'FOR NO KEY UPDATE' : ''}`,
    [tenantId],
  );
  const row = rows[0];
  if (!row) throw AppError.notFound('Tenant');
  return {
    limits: toLimits(row),
    seq: row.seq,
    usage: { jobs: row.job_count, runsPerMinute: row.scheduled_rate },
    unrated: row.unrated_jobs,
  };
}

/** Rounds a rate for display and for problem details (3 decimals: a daily job is 0.001). */
function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Computes runs_per_minute for jobs that predate the column (cron jobs), in batches. */
async function fillMissingRates(db: Queryable, seq: number): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{
      id: string;
      schedule_type: string;
      cron_expression: string | null;
      timezone: string;
      run_at: Date | null;
      every_seconds: number | null;
      anchor_at: Date | null;
    }>(
      `SELECT id, schedule_type, cron_expression, timezone, run_at, every_seconds, anchor_at
         FROM jobs j WHERE ${tenantJobsSql('$1').join(' AND ')} AND runs_per_minute IS NULL LIMIT 1000`,
      [seq],
    );
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.id);
    const rates = rows.map((r) => runsPerMinute(specOf(r as Parameters<typeof specOf>[0])));
    await db.query(
      `UPDATE jobs j SET runs_per_minute = v.rate
         FROM unnest($1::text[], $2::float8[]) AS v(id, rate) WHERE j.id = v.id`,
      [ids, rates],
    );
    if (rows.length < 1000) return;
  }
}

/**
 * The tenant's limits, and its live jobs and the scheduled rate of its active ones as its row
 * counts them; rates missing from older rows are filled first when the row counts any (their
 * update moves the counters).
 */
async function limitsAndUsage(db: Queryable, tenantId: string, lock: boolean) {
  let found = await readLimits(db, tenantId, lock);
  if (found.unrated > 0) {
    await fillMissingRates(db, found.seq);
    found = await readLimits(db, tenantId, lock);
  }
  return found;
}

async function apiKeyUsage(db: Queryable, tenantId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM api_keys
      WHERE tenant_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [tenantId],
  );
  return rows[0]?.n ?? 0;
}

export function quotaExceeded(quota: string, limit: number, current: number, message: string): AppError {
  return new AppError('quota_exceeded', message, { quota: { quota, limit, current: round(current) } });
}

export async function getLimits(deps: ServiceDeps, actor: Actor): Promise<LimitsView> {
  authorize(actor, 'jobs:read');
  const [{ limits, usage: jobs }, apiKeys] = await Promise.all([
    limitsAndUsage(deps.pool, actor.tenantId, false),
    apiKeyUsage(deps.pool, actor.tenantId),
  ]);
  return { ...limits, usage: { jobs: jobs.jobs, runsPerMinute: round(jobs.runsPerMinute), apiKeys } };
}

/**
 * Inside the caller's transaction: refuses adding `jobs` jobs and `runsPerMinute` scheduled
 * runs per minute to the tenant when that would pass maxJobs or maxRunsPerMinute. Call it
 * before writing; the tenant row stays locked until the transaction ends.
 */
export async function checkJobQuota(
  db: Queryable,
  tenantId: string,
  add: { jobs: number; runsPerMinute: number },
): Promise<void> {
  if (add.jobs <= 0 && add.runsPerMinute <= 0) return;
  const { limits, usage } = await limitsAndUsage(db, tenantId, true);
  assertJobQuota(limits, usage, add);
}

/**
 * Inside the caller's transaction, after it wrote jobs whose `added` usage the triggers have
 * counted on the tenant row (which this transaction now holds locked): refuses them as
 * checkJobQuota would have before the write. The caller's error rolls the writes back. Checking
 * after the write holds the tenant row only from the write's end to the commit, so concurrent
 * creates of one tenant write their rows in parallel.
 */
export async function checkAddedJobs(db: Queryable, tenantId: string, added: JobUsage): Promise<void> {
  if (added.jobs <= 0 && added.runsPerMinute <= 0) return;
  const { limits, usage } = await limitsAndUsage(db, tenantId, true);
  assertJobQuota(
    limits,
    { jobs: usage.jobs - added.jobs, runsPerMinute: usage.runsPerMinute - added.runsPerMinute },
    added,
  );
}

function assertJobQuota(limits: TenantLimits, usage: JobUsage, add: JobUsage): void {
  if (add.jobs > 0 && usage.jobs + add.jobs > limits.maxJobs) {
    throw quotaExceeded(
      'maxJobs',
      limits.maxJobs,
      usage.jobs,
      `this workspace has ${usage.jobs} of at most ${limits.maxJobs} jobs; delete some or ask for a higher limit`,
    );
  }
  if (add.runsPerMinute > 0 && usage.runsPerMinute + add.runsPerMinute > limits.maxRunsPerMinute + EPSILON) {
    throw quotaExceeded(
      'maxRunsPerMinute',
      limits.maxRunsPerMinute,
      usage.runsPerMinute,
      `this would schedule ${round(usage.runsPerMinute + add.runsPerMinute)} runs per minute over all active jobs; the limit is ${limits.maxRunsPerMinute} (now ${round(usage.runsPerMinute)})`,
    );
  }
}

/** Inside the caller's transaction: refuses one more API key past maxApiKeys. */
export async function checkApiKeyQuota(db: Queryable, tenantId: string): Promise<void> {
  const { limits } = await readLimits(db, tenantId, true);
  const keys = await apiKeyUsage(db, tenantId);
  if (keys + 1 > limits.maxApiKeys) {
    throw quotaExceeded(
      'maxApiKeys',
      limits.maxApiKeys,
      keys,
      `this workspace has ${keys} of at most ${limits.maxApiKeys} working API keys; revoke one first`,
    );
  }
}

/** Inside the caller's transaction: refuses one more owned workspace past the user's maxWorkspaces. */
export async function checkWorkspaceQuota(db: Queryable, userId: string): Promise<void> {
  const { rows } = await db.query<{ max_workspaces: number; owned: number }>(
    `SELECT u.max_workspaces,
            (SELECT count(*)::int FROM memberships m WHERE m.user_id = u.id AND m.role = 'owner') AS owned
       FROM users u WHERE u.id = $1 FOR NO KEY UPDATE`,
    [userId],
  );
  const row = rows[0];
  if (!row) throw AppError.notFound('User');
  if (row.owned + 1 > row.max_workspaces) {
    throw quotaExceeded(
      'maxWorkspaces',
      row.max_workspaces,
      row.owned,
      `you own ${row.owned} of at most ${row.max_workspaces} workspaces`,
    );
  }
}

export type LimitChanges = Partial<TenantLimits>;

/** Operators only (`belfry admin set-limits`): changes a tenant's limits; answers them all. */
export async function setTenantLimits(
  deps: Pick<ServiceDeps, 'pool'>,
  tenantId: string,
  changes: LimitChanges,
): Promise<TenantLimits> {
  const sets: string[] = [];
  const values: unknown[] = [tenantId];
  for (const [field, column] of Object.entries(LIMIT_FLAGS) as [keyof TenantLimits, string][]) {
    const value = changes[field];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < (field === 'maxJobs' || field === 'maxApiKeys' ? 0 : 1) || value > 1e9) {
      throw AppError.invalid([{ path: field, message: 'must be a whole number from 0 (1 for rates) to 1000000000' }]);
    }
    values.push(value);
    sets.push(`${column} = $${values.length}`);
    // The API's token bucket holds two seconds' worth, as it does by default.
    if (field === 'rateLimitPerSecond') sets.push(`rate_limit_burst = $${values.length} * 2`);
  }
  if (sets.length === 0) throw AppError.invalid([{ path: '', message: 'give at least one limit to change' }]);
  const { rows } = await deps.pool.query<LimitRow>(
    `UPDATE tenants SET ${sets.join(', ')}, updated_at = now() WHERE id = $1
     RETURNING max_jobs, max_runs_per_minute, max_concurrency, rate_limit_per_second, max_api_keys`,
    values,
  );
  const row = rows[0];
  if (!row) throw AppError.notFound('Tenant');
  return toLimits(row);
}

/** Operators only: how many workspaces a user may own. */
export async function setUserWorkspaceLimit(
  deps: Pick<ServiceDeps, 'pool'>,
  email: string,
  maxWorkspaces: number,
): Promise<{ userId: string; email: string; maxWorkspaces: number }> {
  if (!Number.isInteger(maxWorkspaces) || maxWorkspaces < 0 || maxWorkspaces > 1e6) {
    throw AppError.invalid([{ path: 'maxWorkspaces', message: 'must be a whole number from 0 to 1000000' }]);
  }
  const { rows } = await deps.pool.query<{ id: string; email: string; max_workspaces: number }>(
    `UPDATE users SET max_workspaces = $2, updated_at = now() WHERE email = $1
     RETURNING id, email, max_workspaces`,
    [email.trim().toLowerCase(), maxWorkspaces],
  );
  const row = rows[0];
  if (!row) throw AppError.notFound(`User ${email.trim().toLowerCase()}`);
  return { userId: row.id, email: row.email, maxWorkspaces: row.max_workspaces };
}

/** The checks above inside a Prisma interactive transaction (API keys and workspaces use Prisma). */
export function prismaQueryable(tx: {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}): Queryable {
  return {
    async query(text: string, values: unknown[] = []) {
      const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values);
      return { rows, rowCount: rows.length, command: '', oid: 0, fields: [] } as never;
    },
  };
}
