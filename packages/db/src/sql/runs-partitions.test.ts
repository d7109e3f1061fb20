import { describe, expect, it } from 'vitest';
import { onRunsTable, runsDayPartitionName } from './runs-partitions';

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

describe('onRunsTable', () => {
  const sql = onRunsTable('belfry_test', 'WITH x AS (UPDATE runs r SET a = 1 RETURNING r.id) SELECT * FROM x');

  it('addresses the statement to the partition, unnamed outside a transaction that uses names', () => {
    expect(sql({ query: async () => ({ rows: [], rowCount: 0 }) }, 'runs_20261207')).toBe(
      'WITH x AS (UPDATE runs_20261207 r SET a = 1 RETURNING r.id) SELECT * FROM x',
    );
  });

  it('leaves a statement on runs as it is', () => {
    expect(sql({ query: async () => ({ rows: [], rowCount: 0 }) }, 'runs')).toBe(
      'WITH x AS (UPDATE runs r SET a = 1 RETURNING r.id) SELECT * FROM x',
    );
  });

  it('refuses a statement that does not update runs', () => {
    expect(() => onRunsTable('belfry_test', 'UPDATE jobs j SET a = 1')).toThrow(/does not update runs/);
  });
});
