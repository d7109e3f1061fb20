// Authorisation: what an actor may do. API keys carry explicit scopes; dashboard users get
// scopes from their membership role. Every domain service checks the scope it needs, so the
// REST API and the dashboard cannot drift apart on who may do what.
import type { Actor } from '../context';
import { AppError } from '../errors';
import type { ApiKeyScope } from './api-key-format';

const ROLE_SCOPES: Record<'owner' | 'admin' | 'member' | 'viewer', readonly ApiKeyScope[]> = {
  owner: ['admin'],
  admin: ['admin'],
  member: ['jobs:read', 'jobs:write', 'runs:read', 'runs:write'],
  viewer: ['jobs:read', 'runs:read'],
};

export function scopesOf(actor: Actor): readonly string[] {
  switch (actor.type) {
    case 'api_key':
      return actor.scopes;
    case 'user':
      return ROLE_SCOPES[actor.role];
    case 'system':
      return ['admin'];
  }
}

/**
 * `admin` implies every scope, and `x:write` implies `x:read` (a key that may change jobs
 * has to be able to see the job it changed).
 */
export function hasScope(actor: Actor, scope: ApiKeyScope): boolean {
  const held = scopesOf(actor);
  if (held.includes('admin') || held.includes(scope)) return true;
  return scope.endsWith(':read') && held.includes(scope.replace(/:read$/, ':write'));
}

/** Throws 403: the object is the actor's own tenant's, but the actor lacks the scope. */
export function authorize(actor: Actor, scope: ApiKeyScope): void {
  if (!hasScope(actor, scope)) throw new AppError('forbidden', `this requires the '${scope}' scope`);
}
