// The domain's words, once: every status, policy, priority and kind the database, the API, the
// engine and the dashboard speak of. Each is an `as const` array (for zod enums, SQL `= ANY`
// parameters and option lists) with its type derived from it. Pure data: the dashboard's
// browser code imports this module directly (`@belfry/core/vocabulary`).

/** A run's life: pending → running → succeeded | failed (a retry is coming) | dead; or cancelled, skipped. */
export const RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'dead', 'cancelled', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses after which nothing more happens to a run ('failed' still has a retry coming). */
export const FINISHED_RUN_STATUSES = [
  'succeeded',
  'dead',
  'cancelled',
  'skipped',
] as const satisfies readonly RunStatus[];
export type FinishedRunStatus = (typeof FINISHED_RUN_STATUSES)[number];

export function isFinishedRunStatus(status: string): status is FinishedRunStatus {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status);
}

/** Runs that may still be stopped: not started, waiting for a retry, or running. */
export const OPEN_RUN_STATUSES = ['pending', 'failed', 'running'] as const satisfies readonly RunStatus[];

/** One delivery attempt of a run. */
export const ATTEMPT_STATUSES = ['running', 'succeeded', 'failed', 'cancelled'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export const JOB_STATUSES = ['active', 'paused', 'completed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Highest first: workers take a tenant's runs in this order. */
export const PRIORITIES = ['high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** What happens to occurrences missed while nothing could run them. */
export const MISFIRE_POLICIES = ['run_once', 'catch_up', 'skip'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

/** Whether an occurrence may start while the job's previous run still runs. */
export const OVERLAP_POLICIES = ['allow', 'skip'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** Why a run exists: its schedule, a person's "run now", or a replay of a finished run. */
export const RUN_TRIGGERS = ['schedule', 'manual', 'replay'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const SKIP_REASONS = ['misfire', 'overlap'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/**
 * Every kind of target the public API names (docs/api.md, "Targets"). Which of them a
 * deployment accepts and executes is the handlers registry's business (@belfry/handlers).
 */
export const TARGET_KINDS = ['http', 'amqp', 'nats', 'pull', 'container'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/**
 * Where a kind's runs wait and who takes them: `push` — engine workers deliver them (HTTP,
 * broker publishes); `container` — engine nodes with a Docker Engine run them, in slots of
 * their own; `pull` — never engine workers: the tenant's own workers claim them over REST.
 */
export const LANES = ['push', 'container', 'pull'] as const;
export type Lane = (typeof LANES)[number];

/** The lanes engine workers execute (pull runs are claimed by the tenant's workers). */
export const WORKER_LANES = ['push', 'container'] as const satisfies readonly Lane[];
export type WorkerLane = (typeof WORKER_LANES)[number];

/** Which queue a run goes to: its tenant's queue of a lane, by priority — or, for pull, by queue name. */
export type QueueRoute =
  | { lane: WorkerLane; tenantId: string; priority: Priority }
  | { lane: 'pull'; tenantId: string; queue: string };

/** Where alerts go (docs/alerts.md). */
export const ALERT_CHANNEL_TYPES = ['email', 'slack', 'webhook', 'pagerduty'] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

/** Why an incident opened: a run went dead, failures in a row passed the threshold, or an occurrence did not start in time. */
export const INCIDENT_KINDS = ['dead', 'failing', 'late'] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

export const INCIDENT_STATUSES = ['open', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** An incident is announced when it opens and (if the policy says so) when it resolves: never per failed run. */
export const NOTIFICATION_EVENTS = ['opened', 'resolved'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
