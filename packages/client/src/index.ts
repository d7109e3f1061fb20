// @belfry/client: the typed REST client of the Belfry API and webhook verification for the
// receivers of its deliveries. See README.md beside this folder.
export { BelfryClient, type BelfryClientOptions } from './client';
export type {
  ListAlertChannelsQuery,
  ListDeadLetterQuery,
  ListIncidentsQuery,
  ListJobsQuery,
  ListQueuesQuery,
  ListRunsQuery,
  SchedulePreviewQuery,
} from './client';
export * from './errors';
export * from './types';
export * from './webhooks';
