// The last start lags of this node, for the percentiles in its heartbeat (the dashboard's cluster
// view). A ring of fixed size: recording a lag is O(1) whatever the load. (It was an array that
// dropped its oldest entry with splice once it held 50,000 — a copy of 50,000 entries for every
// run from then on, after 100 s at 500 runs/s a node: in the bench's steady load the engines'
// CPU rose by half and the start lag p50 from ~55 to ~110 ms.)

export interface LagSummary {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export class LagWindow {
  private readonly at: Float64Array;
  private readonly ms: Float64Array;
  /** where the next lag goes */
  private next = 0;
  private size = 0;

  constructor(readonly capacity = 50_000) {
    this.at = new Float64Array(capacity);
    this.ms = new Float64Array(capacity);
  }

  record(ms: number, at = Date.now()): void {
    this.at[this.next] = at;
    this.ms[this.next] = ms;
    this.next = (this.next + 1) % this.capacity;
    if (this.size < this.capacity) this.size++;
  }

  /** Percentiles of the lags recorded since `since` (epoch ms), of the last `capacity` at most. */
  summary(since: number): LagSummary {
    const oldest = (this.next - this.size + this.capacity) % this.capacity;
    // Recorded in time order: skip the ones before `since`, keep the rest.
    let skip = 0;
    while (skip < this.size && (this.at[(oldest + skip) % this.capacity] as number) < since) skip++;
    const sorted = new Float64Array(this.size - skip);
    for (let i = 0; i < sorted.length; i++) sorted[i] = this.ms[(oldest + skip + i) % this.capacity] as number;
    sorted.sort();
    const pick = (p: number) =>
      sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null) : null;
    return { count: sorted.length, p50: pick(0.5), p95: pick(0.95), p99: pick(0.99) };
  }
}
