// CPU time of processes on this machine, from /proc (Linux): how much work a system did for a
// workload, a figure a busy machine distorts far less than wall-clock throughput.
import { readFileSync } from 'node:fs';

/** utime + stime of a live process in ms (clock ticks of 10 ms); null if it is gone or unreadable. */
export function processCpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state is the 3rd field of the line, utime the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * A CPU meter over a set of processes that may change (a connection pool replaces backends):
 * CPU used since `start()` by the processes alive at start, plus all the CPU of processes that
 * appeared since (they started within the window). One that exited meanwhile is not counted.
 */
export function cpuMeter() {
  let baseline = new Map<number, number>();
  return {
    start(pids: number[]) {
      baseline = new Map();
      for (const pid of pids) {
        const ms = processCpuMs(pid);
        if (ms !== null) baseline.set(pid, ms);
      }
    },
    elapsed(pidsNow: number[]): number {
      let sum = 0;
      for (const pid of new Set([...baseline.keys(), ...pidsNow])) {
        const now = processCpuMs(pid);
        if (now !== null) sum += now - (baseline.get(pid) ?? 0);
      }
      return sum;
    },
  };
}
