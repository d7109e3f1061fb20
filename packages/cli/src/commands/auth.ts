// `belfry login` and `belfry logout`: check an API key against the server, then store or
// forget it. The key is verified before it is saved, so a typo fails now rather than at the
// next command.
import { Command } from 'commander';
import { configPath, removeConfig, writeConfig } from '../config';
import type { Context } from '../context';
import { normalizeServerUrl } from '../env';
import { ApiError, CliError, UsageError } from '../errors';
import { json } from '../format';
import { clientFor } from './shared';

const DEFAULT_URL = 'http://localhost:3000';

interface LoginFlags {
  url?: string;
  token?: string;
  json?: boolean;
}

export function authCommands(ctx: Context): Command[] {
  const login = new Command('login')
    .description('verify an API key and store it with the server URL')
    .option('--url <url>', `the Belfry server (default: BELFRY_URL or ${DEFAULT_URL})`)
    .option('--token <api key>', 'the API key; "-" reads it from stdin (keeps it out of shell history)')
    .option('--json', 'print the stored URL and config path as JSON')
    .action(async (flags: LoginFlags) => {
      const url = flags.url ? normalizeServerUrl(flags.url, '--url') : (ctx.env.url ?? DEFAULT_URL);
      const token = flags.token === '-' ? (await ctx.io.readStdin()).trim() : (flags.token?.trim() ?? ctx.env.token);
      if (!token) throw new UsageError('login needs --token <api key>');
      const scopeNote = await verify(ctx, url, token);
      const file = writeConfig(ctx.env.configDir, { url, token });
      if (flags.json) {
        ctx.io.out(`${json({ url, configPath: file })}\n`);
        return;
      }
      ctx.io.out(`Logged in to ${url}. Credentials saved to ${file}.\n`);
      if (scopeNote) ctx.io.err(`note: ${scopeNote}\n`);
      const overridden = [ctx.env.url && 'BELFRY_URL', ctx.env.token && 'BELFRY_TOKEN'].filter(Boolean);
      if (overridden.length)
        ctx.io.err(`note: ${overridden.join(' and ')} in the environment still take precedence.\n`);
    });

  const logout = new Command('logout').description('forget the stored credentials').action(() => {
    const file = configPath(ctx.env.configDir);
    ctx.io.out(removeConfig(ctx.env.configDir) ? `Logged out (removed ${file}).\n` : `Not logged in (no ${file}).\n`);
  });

  return [login, logout];
}

/** Lists one job with the key; answers a note when the key is valid but may not read jobs. */
async function verify(ctx: Context, url: string, token: string): Promise<string | null> {
  const client = clientFor(ctx, { url, token });
  try {
    await client.listJobs({ limit: 1 });
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new CliError(`${url} rejected this API key: ${err.problem.detail}`);
    }
    if (err instanceof ApiError && err.status === 403) return `this key may not list jobs (${err.problem.detail})`;
    throw err;
  }
}
