// A task repeated every `intervalMs` after the previous round ended (never two rounds at once).
// A round that throws is reported to `onError` and the loop goes on; a round that works, to
// `onSuccess` (a FailureStreak of @belfry/log ends its streak there); stop() waits for the round
// in progress.
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly onSuccess: () => void = () => {},
  ) {}

  start(): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running = this.round().then(this.onSuccess, this.onError).finally(loop);
      }, this.intervalMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
