// The herd's CPU from /proc: meters over the engine nodes, PostgreSQL's processes and the sink
// for windows of the herd (bench/scenarios/herd.ts), with the WAL written in each.
import type pg from 'pg';
import { cpuMeter, postgresServerPids, reapedChildrenCpuMs } from './proc';

/**
 * CPU (utime + stime from /proc) of each part of the system over a window of the herd: the
 * whole herd, from the moment it was moved to its due time (the engines materialize it ahead of
 * that time) to the last delivery; or its deliveries, from the due time to the last delivery,
 * the window the peers' herd CPU is measured in (bench/peers). `postgresBackends`: the backends connected to the bench database (the
 * engines' pools) but the bench's own (a backend that exited within the window is not
 * counted); `postgresAll`: the postmaster and all its children (backends, WAL writer,
 * checkpointer, background writer, autovacuum workers), the bench's own backends' CPU taken
 * out; children that exited within the window count through the postmaster's cutime + cstime.
 */
export interface HerdCpu {
  runs: number;
  windowMs: number;
  /** CPU ms in the window */
  ms: CpuParts;
  /** CPU ms per 1,000 runs delivered */
  per1000Runs: CpuParts;
  /** wall-clock cores used: CPU ms ÷ window ms */
  cores: CpuParts & { total: number };
  /** cores used by the engines and PostgreSQL (all) in the 2 s before the herd, idle */
  idleCores: { engines: number; postgresAll: number };
  /** WAL written in the window (pg_current_wal_lsn), per run */
  walBytesPerRun: number | null;
}

interface CpuParts {
  engines: number;
  postgresBackends: number;
  postgresAll: number;
  sink: number;
}

/**
 * Meters over the engine processes, PostgreSQL's processes and the sink: `idle(ms)` for the
 * cores used with nothing due, and `window()` for a window of the herd — each window its own
 * meters, so that windows may overlap (the whole herd, and the part from its due time).
 */
export function herdMeters(pool: pg.Pool, enginePids: number[], sinkPid: number | undefined) {
  const pids = async () => {
    const { rows } = await pool.query<{ pid: number; bench: boolean; me: number }>(
      `SELECT pid, application_name = 'belfry-bench' AS bench, pg_backend_pid() AS me
       FROM pg_stat_activity WHERE datname = current_database()`,
    );
    const bench = new Set(rows.filter((r) => r.bench).map((r) => r.pid));
    const me = rows[0]?.me ?? 0;
    bench.add(me);
    const { postmaster, all } = postgresServerPids(me);
    return {
      backends: rows.filter((r) => !bench.has(r.pid)).map((r) => r.pid),
      server: all,
      bench: [...bench],
      postmaster,
    };
  };
  const sinkPids = sinkPid ? [sinkPid] : [];
  const wal = async () =>
    (await pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]?.lsn ?? null;
  // The server's processes alive now plus what its children that exited since used: those the
  // postmaster reaped (cutime + cstime) over their lives, less what they had used at the start.
  // The bench's own backends (its polling) are metered on their own and taken out.
  const serverMeter = () => {
    const server = cpuMeter();
    const benchBackends = cpuMeter();
    let reapedAt: number | null = null;
    return {
      start(p: { server: number[]; bench: number[]; postmaster: number | null }) {
        server.start(p.server);
        benchBackends.start(p.bench);
        reapedAt = reapedChildrenCpuMs(p.postmaster);
      },
      elapsed(p: { server: number[]; bench: number[]; postmaster: number | null }) {
        const { ms, goneAtStartMs } = server.detail(p.server);
        const reaped = reapedChildrenCpuMs(p.postmaster);
        const total = reaped === null || reapedAt === null ? ms : ms + reaped - reapedAt - goneAtStartMs;
        return total - benchBackends.elapsed(p.bench);
      },
    };
  };
  return {
    /** cores used by the engines and the whole server over `ms`, with nothing due */
    async idle(ms: number) {
      const engines = cpuMeter();
      const server = serverMeter();
      engines.start(enginePids);
      server.start(await pids());
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, ms));
      const p1 = await pids();
      const elapsed = Date.now() - t0;
      return {
        engines: round2(engines.elapsed(enginePids) / elapsed),
        postgresAll: round2(server.elapsed(p1) / elapsed),
      };
    },
    /** a window: CPU and WAL from its start() to its read() */
    window() {
      const engines = cpuMeter();
      const backends = cpuMeter();
      const server = serverMeter();
      const sink = cpuMeter();
      let startedAt = 0;
      let walAt: string | null = null;
      return {
        async start() {
          const p = await pids();
          walAt = await wal();
          engines.start(enginePids);
          backends.start(p.backends);
          server.start(p);
          sink.start(sinkPids);
          startedAt = Date.now();
        },
        async read(runs: number, idleCores: HerdCpu['idleCores']): Promise<HerdCpu> {
          const windowMs = Math.max(1, Date.now() - startedAt);
          const p = await pids();
          const ms: CpuParts = {
            engines: engines.elapsed(enginePids),
            postgresBackends: backends.elapsed(p.backends),
            postgresAll: server.elapsed(p),
            sink: sink.elapsed(sinkPids),
          };
          let walBytesPerRun: number | null = null;
          const walNow = await wal();
          if (walAt && walNow && runs > 0) {
            const { rows } = await pool.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($1, $2)::text AS bytes', [
              walNow,
              walAt,
            ]);
            walBytesPerRun = Math.round(Number(rows[0]?.bytes) / runs);
          }
          const each = (f: (v: number) => number): CpuParts => ({
            engines: f(ms.engines),
            postgresBackends: f(ms.postgresBackends),
            postgresAll: f(ms.postgresAll),
            sink: f(ms.sink),
          });
          const cores = each((v) => round2(v / windowMs));
          return {
            runs,
            windowMs,
            ms,
            per1000Runs: each((v) => (runs > 0 ? Math.round((v / runs) * 10_000) / 10 : 0)),
            cores: { ...cores, total: round2((ms.engines + ms.postgresAll + ms.sink) / windowMs) },
            idleCores,
            walBytesPerRun,
          };
        },
      };
    },
  };
}

const round2 = (v: number) => Math.round(v * 100) / 100;
