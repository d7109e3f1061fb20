'use client';
// The signed-in user's active workspace as the pages see it: who they are, which tenant,
// and their role there (to hide what they may not do; the server enforces it regardless).
import { createContext, useContext } from 'react';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';
const ORDER: Role[] = ['viewer', 'member', 'admin', 'owner'];

export interface Workspace {
  user: { id: string; email: string; name: string | null };
  tenantId: string;
  tenantName: string;
  role: Role;
}

export const WorkspaceContext = createContext<Workspace | null>(null);

export function useWorkspace(): Workspace {
  const ws = useContext(WorkspaceContext);
  if (!ws) throw new Error('useWorkspace outside the dashboard shell');
  return ws;
}

export function can(role: Role, minimum: Role): boolean {
  return ORDER.indexOf(role) >= ORDER.indexOf(minimum);
}

/** member and up may change jobs and runs; admin and up keys, secret and members. */
export function useCan(minimum: Role): boolean {
  return can(useWorkspace().role, minimum);
}
