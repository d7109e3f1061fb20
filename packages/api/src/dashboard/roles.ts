// Membership roles, weakest first. Domain services authorise by scope (security/scopes.ts
// maps a role to scopes); these helpers cover what only the dashboard does: managing the
// members themselves.
import { AppError } from '../errors';

export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];
export const INVITABLE_ROLES = ['admin', 'member', 'viewer'] as const;
export type InvitableRole = (typeof INVITABLE_ROLES)[number];

export function atLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

export function requireRole(role: Role, minimum: Role, what: string): void {
  if (!atLeast(role, minimum)) throw new AppError('forbidden', `${what} needs the ${minimum} role; you are ${role}`);
}
