// `belfry signing-secret ...`: the tenant's webhook signing secret (admin keys): show it, rotate
// it (the previous one keeps signing for 24 hours), and end a rotation early.
import type { SigningSecret } from '@belfry/client';
import { Command } from 'commander';
import type { Context } from '../context';
import { clientFor, emit, jsonOption } from './shared';

function describe(secret: SigningSecret): string {
  const lines = [`Current secret:  ${secret.secret}`];
  if (secret.previous && secret.previousExpiresAt) {
    lines.push(`Previous secret: ${secret.previous} (still signing until ${secret.previousExpiresAt})`);
  } else lines.push('Previous secret: none (only the current secret signs)');
  return lines.join('\n');
}

export function signingSecretCommand(ctx: Context): Command {
  const cmd = new Command('signing-secret').description(
    "the tenant's webhook signing secret (needs an admin key): show, rotate, end a rotation",
  );

  cmd
    .command('get')
    .description('show the current secret, and the previous one while a rotation is under way')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }) => {
      const secret = await clientFor(ctx).getSigningSecret();
      emit(ctx, flags.json, secret, () => describe(secret));
    });

  cmd
    .command('rotate')
    .description('make a new secret; the previous one keeps signing alongside it for 24 hours')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }) => {
      const secret = await clientFor(ctx).rotateSigningSecret();
      emit(ctx, flags.json, secret, () => `Rotated.\n${describe(secret)}`);
    });

  cmd
    .command('revoke-previous')
    .description('end a rotation now: the previous secret stops signing (e.g. when it leaked)')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }) => {
      const secret = await clientFor(ctx).revokePreviousSigningSecret();
      emit(ctx, flags.json, secret, () => `The previous secret no longer signs.\n${describe(secret)}`);
    });

  return cmd;
}
