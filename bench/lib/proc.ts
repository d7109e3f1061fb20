// CPU time of processes on this machine, from /proc (Linux): how much work a system did for a
// workload, a figure a busy machine distorts far less than wall-clock throughput.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after "(comm)" — state first (the line's 3rd field), so the
 * line's field n is index n − 3 — or null if the process is gone or unreadable.
 */
function statFields(pid: number | null | undefined): string[] | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime (the 14th and 15th fields) of a live process in ms (clock ticks of 10 ms); null if it is gone. */
export function processCpuMs(pid: number | undefined): number | null {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10 : null;
}

/**
 * A CPU meter over a set of processes that may change (a connection pool replaces backends):
 * CPU used since `start()` by the processes alive at start, plus all the CPU of processes that
 * appeared since (they started within the window). One that exited meanwhile is not counted.
 */
export function cpuMeter() {
  let baseline = new Map<number, number>();
  /** CPU since start, and the CPU at start of the processes that have exited since (`goneAtStartMs`) */
  const detail = (pidsNow: number[]): { ms: number; goneAtStartMs: number } => {
    let sum = 0;
    let goneAtStartMs = 0;
    for (const pid of new Set([...baseline.keys(), ...pidsNow])) {
      const now = processCpuMs(pid);
      if (now !== null) sum += now - (baseline.get(pid) ?? 0);
      else goneAtStartMs += baseline.get(pid) ?? 0;
    }
    return { ms: sum, goneAtStartMs };
  };
  return {
    start(pids: number[]) {
      baseline = new Map();
      for (const pid of pids) {
        const ms = processCpuMs(pid);
        if (ms !== null) baseline.set(pid, ms);
      }
    },
    elapsed: (pidsNow: number[]): number => detail(pidsNow).ms,
    detail,
  };
}

/**
 * CPU ms of the children a live process has waited for (cutime + cstime): what its exited
 * children used over their lives, once reaped; null if it is gone or unreadable.
 */
export function reapedChildrenCpuMs(pid: number | null | undefined): number | null {
  const fields = statFields(pid);
  return fields ? (Number(fields[13]) + Number(fields[14])) * 10 : null;
}

/** The parent pid of a live process (the 4th field of /proc/<pid>/stat); null if it is gone. */
export function parentPid(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : null;
}

/** The live processes whose parent is `ppid`. */
export function childPids(ppid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (parentPid(pid) === ppid) pids.push(pid);
  }
  return pids;
}

/**
 * The PostgreSQL server's processes on this machine, found from one of its backends (a
 * connection's `pg_backend_pid()`): `all` is the postmaster and every child of it (backends,
 * checkpointer, WAL writer, background writer, autovacuum, ...), `postmaster` its pid.
 */
export function postgresServerPids(backendPid: number): { postmaster: number | null; all: number[] } {
  const postmaster = parentPid(backendPid);
  if (!postmaster) return { postmaster: null, all: [] };
  return { postmaster, all: [postmaster, ...childPids(postmaster)] };
}
