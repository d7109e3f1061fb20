// Dashboard-only reads and account management the REST API does not offer. Exported for the
// web app's sign-in (authenticateUser) and for the types its pages render.
export { authenticateUser, type DashboardSession, type MembershipView } from './session';
export { THROTTLES, throttleSignIn, throttleSignUp, UNKNOWN_ADDRESS } from './throttle';
export { ROLES, INVITABLE_ROLES, type Role, type InvitableRole, atLeast } from './roles';
export type { JobWithActivity, JobsTable, RecentOutcome } from './jobs';
export type { Timeline, TimelinePoint } from './timeline';
export type { RunDetail } from './run-detail';
export type { DeadRun } from './dead-letter';
export type { ClusterOverview, EngineNodeView, QueueDepth, LagSummary } from './cluster';
export type { MemberView } from './members';
export type { InvitationView, InvitationPreview } from './invitations';
export type { PreviewTime } from './preview';
