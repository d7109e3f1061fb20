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

const REFILLED = `LEAST($2::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (now() - b.updated_at))::float8) * $3::float8)`;

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
  // The WHERE makes a denied request change nothing and return no row.
  const taken = await db.query<{ tokens: number }>(
    `INSERT INTO rate_limit_buckets AS b (key, tokens, updated_at) VALUES ($1, $2::float8 - $4::float8, now())
     ON CONFLICT (key) DO UPDATE SET tokens = ${REFILLED} - $4::float8, updated_at = now()
      WHERE ${REFILLED} >= $4::float8
     RETURNING tokens`,
    [bucket, limits.burst, limits.perSecond, cost],
  );
  const row = taken.rows[0];
  if (row) {
    return { allowed: true, limit: limits.burst, remaining: Math.max(0, Math.floor(row.tokens)), retryAfterSeconds: 0 };
  }
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
