// The dashboard's tRPC API. Each procedure parses its input, calls one domain function and
// returns what it answers; authorisation lives in those functions.
import { accountRouter } from './routers/account';
import { alertsRouter } from './routers/alerts';
import { jobsRouter } from './routers/jobs';
import { deadLetterRouter, runsRouter, scheduleRouter } from './routers/runs';
import {
  apiKeysRouter,
  clusterRouter,
  limitsRouter,
  membersRouter,
  queuesRouter,
  signingSecretRouter,
} from './routers/settings';
import { router } from './init';

export const appRouter = router({
  account: accountRouter,
  jobs: jobsRouter,
  runs: runsRouter,
  deadLetter: deadLetterRouter,
  schedule: scheduleRouter,
  apiKeys: apiKeysRouter,
  signingSecret: signingSecretRouter,
  members: membersRouter,
  cluster: clusterRouter,
  alerts: alertsRouter,
  queues: queuesRouter,
  limits: limitsRouter,
});

export type AppRouter = typeof appRouter;
