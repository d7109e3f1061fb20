// The command tree and the one place that turns any failure into stderr text and an exit
// code. `run` never calls process.exit, so tests drive it in process.
import { Command, CommanderError } from 'commander';
import { adminCommand } from './commands/admin';
import { alertsCommand, incidentsCommand } from './commands/alerts';
import { authCommands } from './commands/auth';
import { jobsCommand } from './commands/jobs';
import { dlqCommand, runsCommand } from './commands/runs';
import { signingSecretCommand } from './commands/signing-secret';
import { workerCommand } from './commands/worker';
import type { Context } from './context';
import { renderError } from './errors';
import { limitsCommand } from './commands/limits';

export function createProgram(ctx: Context): Command {
  const program = new Command('belfry')
    .description(
      'Belfry: manage scheduled jobs, runs and the dead letter from the command line, and run pull-queue workers',
    )
    .version(ctx.version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) })
    // Throw instead of exiting, so `run` decides the code: 2 for every usage error.
    .exitOverride();
  const groups = [
    ...authCommands(ctx),
    jobsCommand(ctx),
    runsCommand(ctx),
    dlqCommand(ctx),
    incidentsCommand(ctx),
    alertsCommand(ctx),
    workerCommand(ctx),
    limitsCommand(ctx),
    signingSecretCommand(ctx),
    adminCommand(ctx),
  ];
  for (const group of groups) program.addCommand(inherit(group, program));
  return program;
}

/** addCommand does not copy the parent's settings (only .command() does); apply them down the tree. */
function inherit(cmd: Command, parent: Command): Command {
  cmd.copyInheritedSettings(parent);
  for (const sub of cmd.commands) inherit(sub, cmd);
  return cmd;
}

export async function run(argv: string[], ctx: Context): Promise<number> {
  const program = createProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // commander has already printed its own message (help, version, or the usage error).
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const { lines, exitCode } = renderError(err);
    ctx.io.err(`${lines.join('\n')}\n`);
    return exitCode;
  }
}
