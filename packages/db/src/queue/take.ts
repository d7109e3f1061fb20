// Takes due messages off a run queue for a claim, in the caller's transaction, which also claims
// the messages' runs, so a rollback puts the messages back.
//
// It replaces pg-boss's fetch followed by deleteJob in the same transaction. The fetch's UPDATE
// to 'active' (a new row version with new entries in every index, since state is indexed) was
// wasted: the message was deleted before commit anyway. The selection is pg-boss 12's
// fetchNextJob for a standard-policy queue (QUEUE_OPTIONS) without fetch options: the waiting,
// unblocked messages whose start time has come, highest priority then oldest first (then, in
// engine queues, earliest start), skipping those another transaction holds; the same (name,
// priority DESC, created_on, start_after) partial index (job_i11 of the queue's partition)
// serves it. Pull queues (one run per message) use exactly that (takeSingles).
//
// A message may carry several runs (RunBatchMessage, enqueue.ts). The limit counts runs: the
// messages that fit whole are deleted, and of the first one that does not, the runs that fit
// are taken and the rest stay in it, still first in line (its priority, creation and start time
// kept). Only messages the claim takes from are locked; when another claimer holds some of the
// first ones, a second statement looks past them (takeRound). Each round is one statement for
// all of a claim's queues (takeFromQueues).
import { statement } from '../sql/prepared';
import type { Queryable } from '../sql/types';
import type { RunBatchMessage, RunMessage } from './enqueue';
import { parseQueueName } from './names';

/** One run taken off its queue: what pg-boss's fetch returned, as far as claims use it. */
export interface TakenMessage {
  /** the message's id (runs of one message share it) */
  id: string;
  data: RunMessage;
  /** pg-boss's attempt count, as its fetch would have reported it */
  retryCount: number;
}

/**
 * Rounds of one take at most: each after the first only while the room is not full and the last
 * round found messages to look at. Each engine node runs one claim per queue at a time, so a
 * claim meets at most one holder per other node: 16 rounds look past 15.
 */
const MAX_ROUNDS = 16;

/**
 * Takes up to `limit` due runs of `queue`, in pg-boss's fetch order, deleting the messages that
 * carried them (or, for the one taken in part, the runs taken from it). Must run inside the
 * transaction that claims the runs.
 */
export async function takeMessages(db: Queryable, queue: string, limit: number): Promise<TakenMessage[]> {
  return (await takeFromQueues(db, [{ queue, room: limit }]))[0] ?? [];
}

/** A queue to take from, and how many of its runs at most. */
export interface QueueTake {
  queue: string;
  room: number;
}

/**
 * takeMessages for several queues (distinct names) in the caller's transaction, their runs in
 * the order given. Each round is one statement for every engine queue still short of its room
 * (belfry_take_many): a claim spans several tenants' queues with room for a few runs each, and a
 * statement per queue paid a round trip and the start of a plan for each.
 */
export async function takeFromQueues(db: Queryable, queues: QueueTake[]): Promise<TakenMessage[][]> {
  if (new Set(queues.map((q) => q.queue)).size !== queues.length)
    throw new Error('takeFromQueues: a queue given twice');
  const out: TakenMessage[][] = queues.map(() => []);
  let short: { queue: string; room: number; taken: TakenMessage[] }[] = [];
  for (const [i, { queue, room }] of queues.entries()) {
    if (room <= 0) continue;
    // A pull queue's messages carry one run each (enqueue.ts): pg-boss's own selection, which
    // locks exactly the messages it takes, however many claimers its tenant's workers run at once.
    if (parseQueueName(queue)?.lane === 'pull') out[i] = await takeSingles(db, queue, room);
    else short.push({ queue, room, taken: out[i] as TakenMessage[] });
  }
  // messages a round looked at and did not take (another claimer held them): later rounds look past them
  const passed: string[] = [];
  for (let round = 0; round < MAX_ROUNDS && short.length; round++) {
    const rooms = short.map((q) => q.room - q.taken.length);
    const rounds = await takeRound(
      db,
      short.map((q) => q.queue),
      rooms,
      passed,
    );
    short = short.filter((q, k) => {
      const { candidates, offered, messages } = rounds.get(q.queue) ?? NOTHING;
      const got = unpack(messages, q.taken);
      // Done when the round took all it was offered: the room is full or the queue has no more
      // due. Short of that, messages another claimer holds were skipped (the next round looks
      // past them), or a candidate another claimer split meanwhile held fewer runs (the next
      // round reads the queue again).
      if (got.runs >= Math.min(rooms[k] as number, offered)) return false;
      passed.push(...candidates.filter((id) => !got.messages.has(id)));
      return true;
    });
  }
  return out;
}

/** Appends the runs of a round's messages to `taken`: the ids of the messages taken from, and how many runs. */
function unpack(messages: TakenRow[], taken: TakenMessage[]): { messages: Set<string>; runs: number } {
  const got = new Set<string>();
  const before = taken.length;
  for (const row of messages) {
    got.add(row.id);
    const { data } = row;
    if (!('runIds' in data)) {
      taken.push({ id: row.id, data, retryCount: row.retry_count });
      continue;
    }
    const runIds = row.take === null ? data.runIds : data.runIds.slice(0, row.take);
    for (const runId of runIds) {
      taken.push({
        id: row.id,
        data: { runId, scheduledTime: data.scheduledTime, ...(data.overlap ? { overlap: true as const } : {}) },
        retryCount: row.retry_count,
      });
    }
  }
  return { messages: got, runs: taken.length - before };
}

/** pg-boss 12's fetch selection for messages of one run each, deleted instead of made active. */
async function takeSingles(db: Queryable, queue: string, limit: number): Promise<TakenMessage[]> {
  const { rows } = await db.query<{ id: string; data: RunMessage; retry_count: number }>(
    `WITH next AS (
       SELECT j.id
         FROM pgboss.job j
        WHERE j.name = $1 AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
        ORDER BY j.priority DESC, j.created_on
        LIMIT $2
          FOR UPDATE OF j SKIP LOCKED
     ), taken AS (
       DELETE FROM pgboss.job j
        WHERE j.name = $1 AND j.id = ANY (ARRAY(SELECT id FROM next))
       RETURNING j.id, j.data, j.priority, j.created_on,
                 CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
     )
     SELECT id, data, retry_count FROM taken ORDER BY priority DESC, created_on`,
    [queue, limit],
  );
  return rows.map((r) => ({ id: r.id, data: r.data, retryCount: r.retry_count }));
}

interface TakenRow {
  id: string;
  data: RunMessage | RunBatchMessage;
  retry_count: number;
  /** runs taken from a message that carries several: its first `take` (null: all) */
  take: number | null;
}

/**
 * One statement, for each queue: the first messages (not in `passed`) that hold its room in
 * runs, read without locks; of those, the ones no other transaction holds are locked (SKIP
 * LOCKED) and taken — whole, or the first runs of the last one. Locking only the messages it may
 * take matters: a claim that locked `room` messages to take the runs of one would hide the others
 * from every other claimer until it commits.
 */
async function takeRound(
  db: Queryable,
  queues: string[],
  rooms: number[],
  passed: string[],
): Promise<Map<string, Round>> {
  // The statement is the function belfry_take_many (migration 20261207150000; belfry_take_round
  // of migration 20261202060000 for one queue before it), planned once per connection: planning
  // it on each call cost four times its execution. It reads through pgboss.job, not the
  // partition by name: `name = $1` prunes to the queue's partition (job_common for every queue
  // created with QUEUE_OPTIONS). The ids reach the lock, the DELETE and the UPDATE as arrays
  // (InitPlans), as in pg-boss's own fetch with group concurrency: each is then a primary-key
  // probe per message whatever the planner guesses for the room. `room` messages always hold at
  // least `room` runs. Ties on priority and creation (one enqueue's messages) are ordered by
  // start time, then id.
  const { rows } = await db.query<TakeRow>(
    statement(db, 'belfry_take_many', 'SELECT * FROM belfry_take_many($1::text[], $2::int[], $3::uuid[])'),
    [queues, rooms, passed],
  );
  return new Map(
    rows.map((r) => [
      r.take_queue,
      { candidates: r.take_candidates ?? [], offered: r.take_offered, messages: r.take_messages ?? [] },
    ]),
  );
}

/** What belfry_take_many returns for one queue. */
interface TakeRow {
  take_queue: string;
  take_candidates: string[] | null;
  take_offered: number;
  take_messages: TakenRow[] | null;
}

interface Round {
  /** the messages the round looked at (to look past next round) */
  candidates: string[];
  /** runs in them */
  offered: number;
  messages: TakenRow[];
}

const NOTHING: Round = { candidates: [], offered: 0, messages: [] };
