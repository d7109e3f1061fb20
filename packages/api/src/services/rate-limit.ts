// Per-API-key rate limits: a token bucket per key in the UNLOGGED rate_limit_buckets table,
// shared by every web node. Refill and take happen in one INSERT ... ON CONFLICT statement,
// atomic under concurrency; time is the database's, so nodes with skewed clocks agree.
import type { Queryable } from '../sql/tx';
import { perPool } from './per-pool';

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
  const { taken, tokens } = await take(db, bucket, limits, cost);
  return taken
    ? { allowed: true, limit: limits.burst, remaining: Math.max(0, Math.floor(tokens)), retryAfterSeconds: 0 }
    : refusal(limits, tokens, cost);
}

function refusal(limits: BucketLimits, tokens: number, cost: number): RateLimitDecision {
  return {
    allowed: false,
    limit: limits.burst,
    remaining: 0,
    retryAfterSeconds: Math.max(1, Math.ceil((cost - tokens) / limits.perSecond)),
  };
}

/** `cost` tokens taken, all or none: the tokens left after taking, or (refused) the tokens there are. */
async function take(
  db: Queryable,
  bucket: string,
  limits: BucketLimits,
  cost: number,
): Promise<{ taken: boolean; tokens: number }> {
  // The WHERE makes a denied request change nothing and return no row.
  const taken = await db.query<{ tokens: number }>(
    `INSERT INTO rate_limit_buckets AS b (key, tokens, updated_at) VALUES ($1, $2::float8 - $4::float8, now())
     ON CONFLICT (key) DO UPDATE SET tokens = ${REFILLED} - $4::float8, updated_at = now()
      WHERE ${REFILLED} >= $4::float8
     RETURNING tokens`,
    [bucket, limits.burst, limits.perSecond, cost],
  );
  const row = taken.rows[0];
  if (row) return { taken: true, tokens: row.tokens };
  const { rows } = await db.query<{ tokens: number }>(
    `SELECT ${REFILLED} AS tokens FROM rate_limit_buckets b WHERE b.key = $1`,
    [bucket, limits.burst, limits.perSecond],
  );
  return { taken: false, tokens: rows[0]?.tokens ?? 0 };
}

interface BucketQueue {
  limits: BucketLimits;
  waiting: { resolve(d: RateLimitDecision): void; reject(err: unknown): void }[];
  busy: boolean;
}

// Per pool, per bucket: the requests waiting to take their token, shared by every copy of this
// module in the process.
const bucketQueues = perPool<BucketQueue>('belfry.rateLimitQueues');

/**
 * takeToken for one request, shared with the requests of the same bucket that arrive with it:
 * they take their tokens together (a busy key's workers send a hundred completions at once, and
 * a statement each was a fifth of the API's round trips). As many get a token as the bucket
 * holds — never more — and the rest are refused, as if they had come one by one: a crowd costs
 * at most two takes (four statements), however large it is and whether or not it is refused.
 */
export function takeRequestToken(
  pool: object & Queryable,
  bucket: string,
  limits: BucketLimits,
): Promise<RateLimitDecision> {
  const queues = bucketQueues(pool);
  let q = queues.get(bucket);
  if (!q) {
    q = { limits, waiting: [], busy: false };
    queues.set(bucket, q);
  }
  q.limits = limits;
  const queue = q;
  const byBucket = queues;
  return new Promise((resolve, reject) => {
    queue.waiting.push({ resolve, reject });
    if (queue.busy) return;
    queue.busy = true;
    // After the current I/O callbacks, so the requests read in the same turn come along.
    setImmediate(() => void drain(pool, bucket, queue, byBucket));
  });
}

async function drain(pool: Queryable, bucket: string, q: BucketQueue, queues: Map<string, BucketQueue>) {
  while (q.waiting.length) {
    const batch = q.waiting;
    q.waiting = [];
    try {
      const decisions = await takeUpTo(pool, bucket, q.limits, batch.length);
      for (const [i, w] of batch.entries()) w.resolve(decisions[i] as RateLimitDecision);
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
  q.busy = false;
  if (queues.get(bucket) === q) queues.delete(bucket);
}

/**
 * One token for each of `n` requests, as many as the bucket holds: all of them (never more than
 * a burst: the first insert of a bucket assumes a cost within it), else what the refusal said
 * was there (another node may take those first: then none). The first requests get the tokens,
 * each seeing what was left after it, as one by one.
 */
async function takeUpTo(
  pool: Queryable,
  bucket: string,
  limits: BucketLimits,
  n: number,
): Promise<RateLimitDecision[]> {
  let want = Math.min(n, limits.burst);
  let result = await take(pool, bucket, limits, want);
  if (!result.taken && want > 1 && result.tokens >= 1) {
    want = Math.min(want, Math.floor(result.tokens));
    result = await take(pool, bucket, limits, want);
  }
  const granted = result.taken ? want : 0;
  const left = result.tokens;
  return Array.from({ length: n }, (_, i) =>
    i < granted
      ? {
          allowed: true,
          limit: limits.burst,
          remaining: Math.max(0, Math.floor(left)) + granted - 1 - i,
          retryAfterSeconds: 0,
        }
      : refusal(limits, left, 1),
  );
}
