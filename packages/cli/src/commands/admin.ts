// `belfry admin ...`: operator commands that talk to the database directly, not to the REST
// API (there is no tenant yet whose key could call it). The database comes from DATABASE_URL
// or the embedded PostgreSQL, exactly as `npm start` finds it, and the encryption key is the
// one `npm start` hands the server, so secrets sealed here open there. The database packages
// are imported on demand, so the everyday commands do not load Prisma.
import { Command } from 'commander';
import type { Context } from '../context';
import { ApiError, CliError, UsageError } from '../errors';
import { json } from '../format';
import { intArg } from './shared';

export function adminCommand(ctx: Context): Command {
  const admin = new Command('admin').description(
    'operator commands on the database (needs DATABASE_URL or the embedded database)',
  );

  admin
    .command('create-tenant')
    .description('create a tenant with a first API key (all scopes) and a signing secret')
    .requiredOption('--name <name>', 'tenant name (1-200 characters)')
    .option('--json', 'print { "tenantId", "apiKey" } as JSON')
    .action(async (flags: { name: string; json?: boolean }) => {
      const created = await createTenantOnDatabase(ctx, flags.name);
      if (flags.json) {
        ctx.io.out(`${json({ tenantId: created.tenantId, apiKey: created.apiKey })}\n`);
        return;
      }
      ctx.io.out(
        [
          `Created tenant ${flags.name.trim()} (${created.tenantId}).`,
          `API key: ${created.apiKey}`,
          'The key is shown only now; store it somewhere safe.',
          `Use it with: belfry login --url <server url> --token ${created.apiKey}`,
          '',
        ].join('\n'),
      );
    });

  admin
    .command('set-operator')
    .description("let a dashboard user see the whole cluster (every workspace's queue, the nodes' hosts)")
    .requiredOption('--email <email>', "the user's e-mail address")
    .option('--off', 'take the operator view away again')
    .option('--json', 'print { "userId", "email", "operator" } as JSON')
    .action(async (flags: { email: string; off?: boolean; json?: boolean }) => {
      const result = await withDatabase(ctx, (deps, api) => api.setOperator(deps, flags.email, !flags.off));
      if (flags.json) {
        ctx.io.out(`${json(result)}\n`);
        return;
      }
      ctx.io.out(`${result.email} ${result.operator ? 'is now an operator' : 'is no longer an operator'}.\n`);
    });

  admin
    .command('set-limits')
    .description("change a tenant's limits (see docs/limits.md); prints them all")
    .requiredOption('--tenant <id>', 'tenant id (ten_...)')
    .option('--max-jobs <n>', 'jobs the tenant may have', intArg(0, 1_000_000_000))
    .option('--max-runs-per-minute <n>', 'scheduled runs per minute over all active jobs', intArg(1, 1_000_000_000))
    .option('--max-concurrency <n>', 'runs in flight at once', intArg(1, 1_000_000_000))
    .option('--rate-limit <n>', 'API requests per second per key (bursts of twice that)', intArg(1, 1_000_000_000))
    .option('--max-api-keys <n>', 'API keys that work at once', intArg(0, 1_000_000_000))
    .option('--json', 'print the limits as JSON')
    .action(
      async (flags: {
        tenant: string;
        maxJobs?: number;
        maxRunsPerMinute?: number;
        maxConcurrency?: number;
        rateLimit?: number;
        maxApiKeys?: number;
        json?: boolean;
      }) => {
        const changes = {
          ...(flags.maxJobs !== undefined ? { maxJobs: flags.maxJobs } : {}),
          ...(flags.maxRunsPerMinute !== undefined ? { maxRunsPerMinute: flags.maxRunsPerMinute } : {}),
          ...(flags.maxConcurrency !== undefined ? { maxConcurrency: flags.maxConcurrency } : {}),
          ...(flags.rateLimit !== undefined ? { rateLimitPerSecond: flags.rateLimit } : {}),
          ...(flags.maxApiKeys !== undefined ? { maxApiKeys: flags.maxApiKeys } : {}),
        };
        if (Object.keys(changes).length === 0) {
          throw new UsageError(
            'set-limits needs at least one of --max-jobs, --max-runs-per-minute, --max-concurrency, --rate-limit, --max-api-keys',
          );
        }
        const limits = await withDatabase(ctx, (deps, api) => api.setTenantLimits(deps, flags.tenant, changes));
        if (flags.json) {
          ctx.io.out(`${json({ tenantId: flags.tenant, ...limits })}\n`);
          return;
        }
        ctx.io.out(
          [
            `Limits of ${flags.tenant}:`,
            `  max jobs             ${limits.maxJobs}`,
            `  max runs per minute  ${limits.maxRunsPerMinute}`,
            `  max concurrency      ${limits.maxConcurrency}`,
            `  rate limit           ${limits.rateLimitPerSecond}/s per key`,
            `  max API keys         ${limits.maxApiKeys}`,
            '',
          ].join('\n'),
        );
      },
    );

  admin
    .command('set-workspace-limit')
    .description('change how many workspaces a dashboard user may own (default 10)')
    .requiredOption('--email <email>', "the user's e-mail address")
    .requiredOption('--max-workspaces <n>', 'workspaces they may own', intArg(0, 1_000_000))
    .option('--json', 'print { "userId", "email", "maxWorkspaces" } as JSON')
    .action(async (flags: { email: string; maxWorkspaces: number; json?: boolean }) => {
      const result = await withDatabase(ctx, (deps, api) =>
        api.setUserWorkspaceLimit(deps, flags.email, flags.maxWorkspaces),
      );
      if (flags.json) {
        ctx.io.out(`${json(result)}\n`);
        return;
      }
      ctx.io.out(`${result.email} may own at most ${result.maxWorkspaces} workspaces.\n`);
    });

  return admin;
}

type Api = typeof import('@belfry/api');
type Deps = import('@belfry/api').ServiceDeps;

/**
 * Runs `fn` with the services on the database `npm start` uses (migrated first), and closes
 * everything after. Domain errors are printed like the API's.
 */
async function withDatabase<T>(ctx: Context, fn: (deps: Deps, api: Api) => Promise<T>): Promise<T> {
  const [{ Keyring }, db, api] = await Promise.all([
    import('@belfry/core'),
    import('@belfry/db'),
    import('@belfry/api'),
  ]);
  const progress = (message: string) => ctx.io.err(`[belfry] ${message}\n`);
  const dbEnv = wrap('invalid database configuration', () => db.readDbEnv());
  const target = await wrapAsync('cannot start or reach the database', () => db.resolveDatabase(dbEnv, progress));
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    await wrapAsync('cannot use the database', () => db.requireDirectConnection(target));
    // Migrations hold a session lock: on the direct URL (BELFRY_DIRECT_DATABASE_URL, else DATABASE_URL).
    const { partitions } = await wrapAsync('cannot migrate the database', () =>
      db.migrate(target.directUrl, { partitions: dbEnv.BELFRY_PARTITIONS }),
    );
    // Same key source as scripts/start.ts: BELFRY_ENCRYPTION_KEY, else the local secret file.
    const keyring = Keyring.from(db.localSecret('encryption-key', ctx.env.encryptionKey), ctx.env.decryptionKeys);
    const prisma = db.createPrisma(target.url, { max: 2 });
    cleanup.push(() => prisma.$disconnect());
    const pool = db.createPool(target.url, { max: 2, name: 'belfry-cli' });
    cleanup.push(() => pool.end());
    const queue = await wrapAsync('cannot connect the queue', () => db.createQueueClient(target.url, { max: 1 }));
    cleanup.push(() => queue.stop({ graceful: false }));
    const log = {
      info: () => {},
      warn: (obj: object | string, msg?: string) => progress(`warning: ${msg ?? JSON.stringify(obj)}`),
      error: (obj: object | string, msg?: string) => progress(`error: ${msg ?? JSON.stringify(obj)}`),
    };
    const deps = { prisma, pool, queue, clock: api.systemClock, log, keyring, partitions };
    try {
      return await fn(deps, api);
    } catch (err) {
      // Domain errors read like the API's, so they are printed the same way.
      if (err instanceof api.AppError) throw new ApiError(err.status, api.toProblem(err));
      throw err;
    }
  } finally {
    for (const close of cleanup.reverse()) await close().catch(() => {});
    await target.release().catch(() => {});
  }
}

function createTenantOnDatabase(ctx: Context, name: string): Promise<{ tenantId: string; apiKey: string }> {
  return withDatabase(ctx, async (deps, api) => {
    const created = await api.createTenant(deps, { name });
    if (!created.apiKey) throw new CliError('the tenant was created without an API key');
    return { tenantId: created.tenantId, apiKey: created.apiKey };
  });
}

function wrap<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new CliError(`${what}: ${(err as Error).message}`);
  }
}

async function wrapAsync<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new CliError(`${what}: ${(err as Error).message}`);
  }
}
