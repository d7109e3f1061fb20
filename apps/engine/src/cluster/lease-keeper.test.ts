// The fair share of scheduler partitions: an even split whatever the number of nodes.
import { describe, expect, it } from 'vitest';
import { fairShare } from './lease-keeper';

describe('fairShare', () => {
  it('splits 16 partitions over 3 nodes as 6, 5, 5 (by node id)', () => {
    const live = ['node-a', 'node-b', 'node-c'];
    expect(live.map((n) => fairShare(16, live, n))).toEqual([6, 5, 5]);
  });

  it('hands out every partition and keeps every node within one of the others', () => {
    for (const total of [1, 7, 16, 1024]) {
      for (let n = 1; n <= 12; n++) {
        const live = Array.from({ length: n }, (_, i) => `node-${String(i).padStart(2, '0')}`);
        const shares = live.map((id) => fairShare(total, live, id));
        expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('a node that is not yet seen alive counts itself in, after the others', () => {
    expect(fairShare(16, [], 'me')).toBe(16);
    expect(fairShare(16, ['a', 'b'], 'me')).toBe(5);
    expect(fairShare(16, ['a', 'b'], 'a')).toBe(8);
  });
});
