// What a peer (a queue library a user would build the same webhook job on) must provide to run
// the bench's workloads: a store per workload (a database or a Redis prefix of its own), a
// producer that enqueues delayed jobs, and a worker that runs in each worker process.
export type PeerName = 'pgboss' | 'graphile' | 'bullmq';

/** One occurrence to enqueue: delivered at `runAt` with `jobId` in belfry-job-id. */
export interface PeerJob {
  jobId: string;
  runAt: Date;
}

/** The job data every peer stores: what the request needs besides the peer's own job id. */
export interface PeerData {
  jobId: string;
  scheduledTime: string;
}

/** One webhook request, with the headers the sink records (as Belfry sends them). */
export interface Delivery {
  /** the peer's id of this job: `webhook-id`, stable across its retries */
  runId: string;
  jobId: string;
  scheduledTime: string;
  /** 1 for the first attempt */
  attempt: number;
}

/** Resolves once the sink answered 2xx; rejects otherwise. */
export type Deliver = (d: Delivery) => Promise<void>;

/** A peer's tunables: numbers and switches, overridable with --peer-settings. */
export type Settings = Record<string, number | boolean>;

/** Where a worker process finds the store (JSON, passed on its command line). */
export interface StoreAddress {
  url: string;
  queue: string;
  prefix?: string;
}

export interface PeerStore {
  address: StoreAddress;
  enqueue(jobs: PeerJob[]): Promise<void>;
  /** after a bulk load: PostgreSQL peers VACUUM ANALYZE, as the Belfry herd does after its load */
  settle(): Promise<void>;
  /**
   * The server processes doing this store's work, for CPU accounting: the PostgreSQL backends
   * connected to the peer's database, or the Redis server (shared: others' use counts too).
   */
  serverPids(): Promise<number[]>;
  /** the store server's durability settings, for the report (PostgreSQL's commit/fsync, Redis's persistence) */
  serverInfo(): Promise<Record<string, string>>;
  /** closes the producer and removes the store (database dropped, Redis keys deleted) */
  close(): Promise<void>;
}

export interface PeerWorker {
  stop(): Promise<void>;
}

export interface PeerDriver<S extends Settings = Settings> {
  name: PeerName;
  /** package name and installed version, for the report */
  title: string;
  /** the settings the bench uses unless overridden; README.md says why each */
  defaults: S;
  open(settings: S): Promise<PeerStore>;
  work(address: StoreAddress, settings: S, deliver: Deliver): Promise<PeerWorker>;
}
