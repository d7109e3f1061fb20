// Herd spreading (docs/api.md, "Concepts", Jitter): a job with `jitterSeconds` starts each
// occurrence at its scheduled time plus a fixed offset in [0, jitterSeconds). The offset is a hash
// of (job id, scheduled time), so every engine node, the API and the dashboard's preview compute
// the same one, it never changes when an occurrence is materialized again, and the occurrences of
// one job (and the jobs of one herd) spread evenly over the window.
import { createHash } from 'node:crypto';

export const MAX_JITTER_SECONDS = 3600;

/** The occurrence's offset in whole milliseconds, in [0, jitterSeconds * 1000). */
export function jitterOffsetMs(jobId: string, scheduledTime: Date, jitterSeconds: number): number {
  if (!(jitterSeconds > 0)) return 0;
  const windowMs = Math.round(Math.min(jitterSeconds, MAX_JITTER_SECONDS) * 1000);
  const digest = createHash('sha256').update(`${jobId}@${scheduledTime.getTime()}`).digest();
  // 48 bits: exact in a double, and the modulo bias over a window of at most 3.6e6 ms is < 1e-8.
  return digest.readUIntBE(0, 6) % windowMs;
}

/** When the occurrence at `scheduledTime` is due to start: its scheduled time plus its offset. */
export function dueTime(jobId: string, scheduledTime: Date, jitterSeconds: number): Date {
  return new Date(scheduledTime.getTime() + jitterOffsetMs(jobId, scheduledTime, jitterSeconds));
}
