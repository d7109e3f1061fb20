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

/** A CPU meter over a fixed set of processes: CPU used since `start()` by those still alive. */
export function cpuMeter(pids: () => (number | undefined)[]) {
  let baseline = new Map<number, number>();
  return {
    start() {
      baseline = new Map();
      for (const pid of pids()) {
        const ms = pid ? processCpuMs(pid) : null;
        if (pid && ms !== null) baseline.set(pid, ms);
      }
    },
    /** ms of CPU since start(); a process that exited meanwhile is not counted (undercount) */
    elapsed(): number {
      let sum = 0;
      for (const [pid, before] of baseline) {
        const now = processCpuMs(pid);
        if (now !== null) sum += now - before;
      }
      return sum;
    },
  };
}
