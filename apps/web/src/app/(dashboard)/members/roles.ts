// What each role may do, as the members page says it, and what removing a member does.
import type { Role } from '../../_lib/workspace';

export const ROLE_HELP: Record<Role, string> = {
  viewer: 'Sees jobs, runs and the cluster',
  member: 'Also creates and changes jobs, triggers, cancels and replays runs',
  admin: 'Also manages API keys, the signing secret and members',
  owner: 'Everything, including making others owners',
};

/** What removing (or leaving) does, said before it is done: access ends and keys are revoked. */
export function removalConsequences(removing: { activeApiKeys: number } | null, self: boolean): string {
  const n = removing?.activeApiKeys ?? 0;
  const keys = n === 1 ? 'the 1 API key' : `the ${n} API keys`;
  if (self) {
    const access = 'You lose access to this workspace until someone invites you again.';
    return n > 0 ? `${access} ${keys[0]?.toUpperCase()}${keys.slice(1)} you created will be revoked.` : access;
  }
  const access = 'They lose access to this workspace at once.';
  return n > 0
    ? `${access} ${keys[0]?.toUpperCase()}${keys.slice(1)} they created will be revoked too; anything using ${n === 1 ? 'it' : 'them'} stops working.`
    : `${access} They created no API keys that still work.`;
}
