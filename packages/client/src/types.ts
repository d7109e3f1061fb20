// Short names for the generated OpenAPI types (src/generated/openapi.ts, not committed: it is
// generated from packages/api's zod schemas at install). Only aliases live here, so a field
// added to a schema shows up in every one of them without an edit.
import type { components, operations, paths } from './generated/openapi';
import {
  attemptStatusValues,
  jobMisfirePolicyValues,
  jobOverlapPolicyValues,
  jobPriorityValues,
  jobStatusValues,
  runStatusValues,
  runTriggerValues,
} from './generated/openapi';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type Job = Schemas['Job'];
/** The tenant's limits and what it uses of them (GET /api/v1/limits). */
export type Limits = Schemas['Limits'];
export type JobCreate = Schemas['JobCreate'];
export type JobPatch = Schemas['JobPatch'];
export type Schedule = Schemas['Schedule'];
export type ScheduleInput = Schemas['ScheduleInput'];
export type Target = Schemas['Target'];
export type TargetInput = Schemas['TargetInput'];
/** Each kind of target, as sent and as answered (a broker URL's password answers as ***). */
export type HttpTargetInput = Schemas['HttpTargetInput'];
export type HttpTarget = Schemas['HttpTarget'];
export type AmqpTargetInput = Schemas['AmqpTargetInput'];
export type AmqpTarget = Schemas['AmqpTarget'];
export type NatsTargetInput = Schemas['NatsTargetInput'];
export type NatsTarget = Schemas['NatsTarget'];
export type Retry = Schemas['Retry'];
export type Run = Schemas['Run'];
export type Attempt = Schemas['Attempt'];
/** A dead run as the dead letter lists it, with `replayedBy` (its latest replay, or null). */
export type DeadLetterRun = Schemas['DeadLetterRun'];
export type DeadLetterReplay = Schemas['DeadLetterReplay'];
export type ReplayResult = Schemas['ReplayResult'];
export type SchedulePreview = Schemas['SchedulePreview'];
export type SigningSecret = Schemas['SigningSecret'];
export type FieldError = Schemas['FieldError'];
export type AlertChannel = Schemas['AlertChannel'];
export type AlertChannelInput = Schemas['AlertChannelInput'];
export type AlertChannelPatch = Schemas['AlertChannelPatch'];
export type AlertChannelTestResult = Schemas['AlertChannelTestResult'];
export type AlertPolicy = Schemas['AlertPolicy'];
export type AlertPolicyInput = Schemas['AlertPolicyInput'];
export type JobAlerts = Schemas['JobAlerts'];
export type Incident = Schemas['Incident'];
export type Notification = Schemas['Notification'];
/** Pull queues: what a worker sends to claim runs, and each run it gets with its lease. */
export type ClaimRequest = operations['claimRuns']['requestBody']['content']['application/json'];
export type ClaimedRun = Schemas['ClaimedRun'];
export type HeartbeatRequest = Schemas['HeartbeatRequest'];
export type CompleteRequest = operations['completeRun']['requestBody']['content']['application/json'];
export type PullQueue = Schemas['PullQueue'];

/**
 * RFC 9457 problem details as the API sends them. Only `detail` is certain: when a proxy or
 * another server answers instead, the client makes a problem up from the HTTP status.
 */
export type Problem = Partial<Schemas['Problem']> & { detail: string };

/** A cursor-paginated list: `nextCursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type JobStatus = Job['status'];
export type RunStatus = Run['status'];
export type AttemptStatus = Attempt['status'];
export type RunTrigger = Run['trigger'];
export type Priority = Job['priority'];
export type MisfirePolicy = Job['misfirePolicy'];
export type OverlapPolicy = Job['overlapPolicy'];

/** The values of each enumeration, in the order the API documents them. */
export const JOB_STATUSES: readonly JobStatus[] = jobStatusValues;
export const RUN_STATUSES: readonly RunStatus[] = runStatusValues;
export const ATTEMPT_STATUSES: readonly AttemptStatus[] = attemptStatusValues;
export const RUN_TRIGGERS: readonly RunTrigger[] = runTriggerValues;
export const PRIORITIES: readonly Priority[] = jobPriorityValues;
export const MISFIRE_POLICIES: readonly MisfirePolicy[] = jobMisfirePolicyValues;
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = jobOverlapPolicyValues;
