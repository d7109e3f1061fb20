// Per-API-key rate limits: a token bucket per key in the UNLOGGED rate_limit_buckets table,
// shared by every web node. Refill and take happen in one INSERT ... ON CONFLICT statement,
// atomic under concurrency; time is the database's, so nodes with skewed clocks agree.
import type { Queryable } from '../sql/tx';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** whole tokens left after this request */
  remaining: number;
  /** when denied: seconds until a token is available (>= 1) */
  retryAfterSeconds: number;
}

/** The bucket's tokens now: what it held plus what refilled since, up to the burst. */
const refilled = (burst: string, perSecond: string) =>
  `LEAST(${burst}::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (now() - b.updated_at))::float8) * ${perSecond}::float8)`;
const REFILLED = refilled('$2', '$3');

/**
 * The statement that takes `cost` tokens (all or none) from bucket `key`, for use as a
 * data-modifying CTE: `key`, `burst`, `perSecond` and `cost` are SQL expressions, and `from`
 * (optional) the rows they are read from. Returns the tokens left; no row when denied (the
 * WHERE makes a denied request change nothing).
 */
export function takeTokenSql(e: {
  key: string;
  burst: string;
  perSecond: string;
  cost: string;
  from?: string;
}): string {
  const refill = refilled(e.burst, e.perSecond);
  return `INSERT INTO rate_limit_buckets AS b (key, tokens, updated_at)
     SELECT ${e.key}, ${e.burst}::float8 - ${e.cost}::float8, now()${e.from ? ` FROM ${e.from}` : ''}
     ON CONFLICT (key) DO UPDATE SET tokens = ${refill} - ${e.cost}::float8, updated_at = now()
      WHERE ${refill} >= ${e.cost}::float8
     RETURNING tokens`;
}

export interface BucketLimits {
  perSecond: number;
  burst: number;
}

/** Takes `cost` tokens (1 per request; a batch may count as several), all or none. */
export async function takeToken(
  db: Queryable,
  bucket: string,
  limits: BucketLimits,
  cost = 1,
): Promise<RateLimitDecision> {
  const taken = await db.query<{ tokens: number }>(
    takeTokenSql({ key: '$1::text', burst: '$2', perSecond: '$3', cost: '$4' }),
    [bucket, limits.burst, limits.perSecond, cost],
  );
  const row = taken.rows[0];
  return row ? allowed(limits, row.tokens) : denied(db, bucket, limits, cost);
}

export function allowed(limits: BucketLimits, tokens: number): RateLimitDecision {
  return { allowed: true, limit: limits.burst, remaining: Math.max(0, Math.floor(tokens)), retryAfterSeconds: 0 };
}

/** The decision for a request refused `cost` tokens: how long until the bucket holds them. */
export async function denied(
  db: Queryable,
  bucket: string,
  limits: BucketLimits,
  cost: number,
): Promise<RateLimitDecision> {
  const { rows } = await db.query<{ tokens: number }>(
    `SELECT ${REFILLED} AS tokens FROM rate_limit_buckets b WHERE b.key = $1`,
    [bucket, limits.burst, limits.perSecond],
  );
  const tokens = rows[0]?.tokens ?? 0;
  return {
    allowed: false,
    limit: limits.burst,
    remaining: 0,
    retryAfterSeconds: Math.max(1, Math.ceil((cost - tokens) / limits.perSecond)),
  };
}
