// A lane's slots on one node. A run is claimed up to 500 ms before it is due and then waits for
// its time; while it waits it holds no execution slot, only a place among the runs waiting
// (as many as the lane has slots). So the lane's slot count (BELFRY_WORKER_CONCURRENCY) is the
// number of targets called at once, and a jittered herd's runs claimed ahead no longer fill the
// slots the due runs need (bench herd-jitter, 400 slots: p99 start lag 0.5–0.9 s when waiting
// runs held slots).
//
// When a waiting run comes due it takes an execution slot; when none is free it queues, first
// in line for the next one — before any new claim, whose room counts only slots nobody waits
// for. Claims reserve their room up front (reserve/unreserve): a claim in flight may bring back
// due runs only, so a slot it reserved is not handed to a waiting run meanwhile.

export class LaneSlots {
  /** runs calling their target (or about to: claimed when due) */
  executing = 0;
  /** runs claimed ahead, waiting for their due time or for a slot */
  waiting = 0;
  /** room reserved by claims in flight */
  reserved = 0;
  private readonly queue: Array<(admitted: boolean) => void> = [];

  /** `slots` is read each time: a lane may open and close (a container engine away) */
  constructor(private readonly slots: () => number) {}

  /** How many runs a claim may take now: execution slots nobody waits for, within the room for runs waiting. */
  room(): number {
    const slots = this.slots();
    const forExecution = slots - this.executing - this.reserved - this.queue.length;
    const forAll = 2 * slots - this.executing - this.waiting - this.reserved;
    return Math.max(0, Math.min(forExecution, forAll));
  }

  reserve(n: number): void {
    this.reserved += n;
  }

  unreserve(n: number): void {
    this.reserved -= n;
    this.admitQueued();
  }

  /** A claimed run enters: waiting when it was claimed ahead of its due time, else executing. */
  add(waiting: boolean): void {
    if (waiting) this.waiting++;
    else this.executing++;
  }

  /** A run ends, from whichever count it is in. */
  remove(waiting: boolean): void {
    if (waiting) this.waiting--;
    else this.executing--;
    this.admitQueued();
  }

  /**
   * A waiting run is due: it moves to executing once a slot is free (at once, or when one
   * frees), and the answer is true; false when `signal` aborts first (it stays waiting, and its
   * end is then removed as such).
   */
  admit(signal: AbortSignal): boolean | Promise<boolean> {
    if (signal.aborted) return false;
    if (!this.queue.length && this.free() > 0) {
      this.waiting--;
      this.executing++;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const i = this.queue.indexOf(admitted);
        if (i >= 0) this.queue.splice(i, 1);
        resolve(false);
      };
      const admitted = (yes: boolean) => {
        signal.removeEventListener('abort', onAbort);
        resolve(yes);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(admitted);
    });
  }

  /** waiting runs that are due but have no slot yet */
  get queued(): number {
    return this.queue.length;
  }

  private free(): number {
    return this.slots() - this.executing - this.reserved;
  }

  private admitQueued(): void {
    while (this.queue.length && this.free() > 0) {
      const next = this.queue.shift() as (admitted: boolean) => void;
      this.waiting--;
      this.executing++;
      next(true);
    }
  }
}
