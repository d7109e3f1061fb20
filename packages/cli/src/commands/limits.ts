// `belfry limits`: the tenant's limits and what it uses of them (GET /api/v1/limits).
import { Command } from 'commander';
import type { Context } from '../context';
import { clientFor, emit, jsonOption } from './shared';

export function limitsCommand(ctx: Context): Command {
  return new Command('limits')
    .description("show the tenant's limits and its usage")
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }) => {
      const limits = await clientFor(ctx).getLimits();
      emit(ctx, flags.json, limits, () =>
        [
          `jobs                  ${limits.usage.jobs} of ${limits.maxJobs}`,
          `scheduled runs/min    ${limits.usage.runsPerMinute} of ${limits.maxRunsPerMinute}`,
          `API keys              ${limits.usage.apiKeys} of ${limits.maxApiKeys}`,
          `concurrent runs       at most ${limits.maxConcurrency}`,
          `API requests/s        ${limits.rateLimitPerSecond} per key`,
        ].join('\n'),
      );
    });
}
