import { describe, expect, it } from 'vitest';
import { isStalePreparedStatement } from './prepared';
import { noteGonePartition, runsDayPartitionName, updateOfRuns } from './runs-partitions';
import type { NamedStatement, Queryable } from './types';

describe('runsDayPartitionName', () => {
  it('names the UTC day of times that share it', () => {
    expect(runsDayPartitionName([new Date('2026-12-07T00:00:00Z'), new Date('2026-12-07T23:59:59.999Z')])).toBe(
      'runs_20261207',
    );
    // the day is UTC's, whatever the offset the time was written with
    expect(runsDayPartitionName([new Date('2026-12-07T23:30:00-02:00')])).toBe('runs_20261208');
  });

  it('names none for times on two days, or for no times', () => {
    expect(runsDayPartitionName([new Date('2026-12-07T23:59:59.999Z'), new Date('2026-12-08T00:00:00Z')])).toBeNull();
    expect(runsDayPartitionName([])).toBeNull();
  });
});

/** A connection that answers whether a partition exists with `exists`, and records what it was sent. */
function fakeDb(exists: boolean) {
  const sent: (string | NamedStatement)[] = [];
  const db: Queryable = {
    query: async <R extends object>(text: string | NamedStatement) => {
      sent.push(text);
      const rows = typeof text === 'string' && text.includes('pg_inherits') ? [{ exists }] : [];
      return { rows: rows as unknown as R[], rowCount: rows.length };
    },
  };
  return { db, sent: () => sent.filter((t) => typeof t !== 'string' || !t.includes('pg_inherits')) };
}

describe('updateOfRuns', () => {
  const update = updateOfRuns('belfry_test', 'WITH x AS (UPDATE runs r SET a = 1 RETURNING r.id) SELECT * FROM x');
  const day = [new Date('2026-12-07T10:00:00Z'), new Date('2026-12-07T11:00:00Z')];

  it("updates the batch's day partition where it exists (unnamed outside a transaction that uses names)", async () => {
    const { db, sent } = fakeDb(true);
    await update(db, day, []);
    expect(sent()).toEqual(['WITH x AS (UPDATE runs_20261207 r SET a = 1 RETURNING r.id) SELECT * FROM x']);
  });

  it('updates runs where the day has no partition of its own, or the batch spans two days', async () => {
    const missing = fakeDb(false);
    await update(missing.db, day, []);
    const spanning = fakeDb(true);
    await update(spanning.db, [new Date('2026-12-07T23:59:59Z'), new Date('2026-12-08T00:00:01Z')], []);
    for (const { sent } of [missing, spanning])
      expect(sent()).toEqual(['WITH x AS (UPDATE runs r SET a = 1 RETURNING r.id) SELECT * FROM x']);
  });

  it('refuses a statement that does not update runs once', () => {
    expect(() => updateOfRuns('belfry_test', 'UPDATE jobs j SET a = 1')).toThrow(/UPDATE runs r/);
  });
});

describe('noteGonePartition', () => {
  const db: Queryable = { query: async () => ({ rows: [], rowCount: 0 }) };
  const undefinedTable = (relation: string) =>
    Object.assign(new Error(`relation "${relation}" does not exist`), { code: '42P01' });

  it('marks the error of a partition that is gone, so that the transaction runs again', () => {
    const err = undefinedTable('runs_20261207');
    noteGonePartition(db, 'runs_20261207', err);
    expect(isStalePreparedStatement(err)).toBe(true);
  });

  it('leaves any other error as it is: another table missing, another code, a statement on runs', () => {
    const other = undefinedTable('open_runs');
    noteGonePartition(db, 'runs_20261207', other);
    const code = Object.assign(new Error('relation "runs_20261207" is locked'), { code: '55P03' });
    noteGonePartition(db, 'runs_20261207', code);
    const parent = undefinedTable('runs');
    noteGonePartition(db, 'runs', parent);
    for (const err of [other, code, parent]) expect(isStalePreparedStatement(err)).toBe(false);
  });
});
