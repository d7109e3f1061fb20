// The bench's command line: which scenarios, at which scale (quick or full, with overrides for
// development runs), and the peers' options. Bad values stop the bench before anything runs.
export interface BenchArgs {
  quick: boolean;
  want(scenario: string): boolean;
  wantPeer(peer: string): boolean;
  P: {
    herd: number;
    steadySeconds: number;
    steadyRate: number;
    scale: number[];
    fairBig: number;
    fairSmall: number;
    fairHang: number;
    /** handlers scenario: due runs per target kind */
    handlers: number;
    /** container scenario: occurrences, and the bare docker run calls beside them */
    containers: number;
    /** pull scenario: due runs completed through the REST API */
    pull: number;
    /** jobs the create scenario sends through POST /api/v1/jobs/batch */
    create: number;
    /** jitterSeconds of the herd-jitter scenario's jobs */
    herdJitter: number;
    /** seconds from moving a herd (herd, herd-jitter, fairness) to its due time (HerdOptions.leadSeconds) */
    herdLead: number;
    /** each engine node's BELFRY_WORKER_CONCURRENCY in the herd scenario (HerdOptions.workerConcurrency) */
    herdConcurrency: number;
    /** knee scenario: seconds each rate is held, the ladder's step (/s), at most this many steps */
    kneeSeconds: number;
    kneeStep: number;
    kneeSteps: number;
    /** knee scenario: bisection stops at this gap (/s) */
    kneeResolution: number;
  };
  /** handlers scenario: which kinds (--handler-kinds=http,amqp,nats,pull); undefined = every one */
  handlerKinds: string[] | undefined;
  peerWorkloads: Set<string>;
  /** --peer-settings JSON, checked against each peer's settings when it runs */
  peerSettings: unknown;
}

export function parseArgs(args: string[]): BenchArgs {
  const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const numberArg = (name: string, fallback: number) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${raw}`);
    return n;
  };
  const quick = args.includes('--quick');
  const onlyArg = value('only');
  const only = onlyArg ? new Set(onlyArg.split(',')) : null;
  const peerWorkloads = new Set((value('peer-workloads') ?? 'herd,steady').split(','));
  for (const w of peerWorkloads)
    if (w !== 'herd' && w !== 'steady') throw new Error(`--peer-workloads: unknown workload "${w}" (herd, steady)`);
  const settingsArg = value('peer-settings');
  let peerSettings: unknown;
  try {
    peerSettings = settingsArg ? JSON.parse(settingsArg) : undefined;
  } catch (err) {
    throw new Error(`--peer-settings is not JSON: ${(err as Error).message}`);
  }
  const base = quick
    ? {
        herd: 20_000,
        steadySeconds: 60,
        scale: [100_000, 1_000_000],
        fairBig: 10_000,
        fairSmall: 100,
        fairHang: 500,
        handlers: 5_000,
        create: 20_000,
        kneeSeconds: 20,
        kneeSteps: 4,
        kneeResolution: 500,
      }
    : {
        herd: 100_000,
        steadySeconds: 300,
        scale: [1_000_000, 10_000_000],
        fairBig: 50_000,
        fairSmall: 100,
        fairHang: 500,
        handlers: 20_000,
        create: 100_000,
        kneeSeconds: 120,
        kneeSteps: 6,
        kneeResolution: 250,
      };
  return {
    quick,
    want: (name) => !only || only.has(name),
    wantPeer: (name) => !only || only.has('peers') || only.has(`peer-${name}`),
    P: {
      ...base,
      herd: numberArg('herd', base.herd),
      steadySeconds: numberArg('steady-seconds', base.steadySeconds),
      steadyRate: numberArg('steady-rate', 1000),
      handlers: numberArg('handlers', base.handlers),
      containers: numberArg('containers', 200),
      pull: numberArg('pull', 20_000),
      create: numberArg('create', base.create),
      herdJitter: numberArg('herd-jitter', 60),
      herdLead: numberArg('herd-lead', 12),
      herdConcurrency: numberArg('herd-concurrency', 400),
      kneeSeconds: numberArg('knee-seconds', base.kneeSeconds),
      kneeStep: numberArg('knee-step', 1000),
      kneeSteps: numberArg('knee-steps', base.kneeSteps),
      kneeResolution: numberArg('knee-resolution', base.kneeResolution),
    },
    handlerKinds: value('handler-kinds')?.split(','),
    peerWorkloads,
    peerSettings,
  };
}
