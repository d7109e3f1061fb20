// The container target's part of the job form: its fields as text boxes hold them, and the
// conversion to and from the API's `container` target. Command and entrypoint are one
// argument per line (no shell quoting to get wrong); env rows reuse the header rows.
import type { Target } from '@belfry/client';
import { type HeaderRow, newHeaderRow } from '../_form/model';

export type ContainerTarget = Extract<Target, { type: 'container' }>;
export const NETWORKS = ['none', 'bridge'] as const satisfies readonly ContainerTarget['network'][];
export const PULL_POLICIES = [
  'if-missing',
  'never',
  'always',
] as const satisfies readonly ContainerTarget['pullPolicy'][];

export interface ContainerFields {
  image: string;
  command: string;
  entrypoint: string;
  env: HeaderRow[];
  workingDir: string;
  user: string;
  memoryMb: string;
  cpus: string;
  network: ContainerTarget['network'];
  pullPolicy: ContainerTarget['pullPolicy'];
}

export function emptyContainerFields(): ContainerFields {
  return {
    image: '',
    command: '',
    entrypoint: '',
    env: [],
    workingDir: '',
    user: '',
    memoryMb: '512',
    cpus: '1',
    network: 'none',
    pullPolicy: 'if-missing',
  };
}

export function containerFieldsOf(t: ContainerTarget): ContainerFields {
  return {
    image: t.image,
    command: (t.command ?? []).join('\n'),
    entrypoint: (t.entrypoint ?? []).join('\n'),
    env: Object.entries(t.env).map(([n, v]) => newHeaderRow(n, v)),
    workingDir: t.workingDir ?? '',
    user: t.user ?? '',
    memoryMb: String(t.memoryMb),
    cpus: String(t.cpus),
    network: t.network,
    pullPolicy: t.pullPolicy,
  };
}

const lines = (text: string) => (text.trim() ? text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n') : undefined);
/** A number from a text box; NaN (the server names the field) when it is not one. */
const num = (text: string) => (/^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN);

export function containerTargetOf(f: ContainerFields) {
  const command = lines(f.command);
  const entrypoint = lines(f.entrypoint);
  return {
    type: 'container' as const,
    image: f.image.trim(),
    ...(command ? { command } : {}),
    ...(entrypoint ? { entrypoint } : {}),
    env: Object.fromEntries(f.env.filter((r) => r.name.trim() || r.value).map((r) => [r.name.trim(), r.value])),
    ...(f.workingDir.trim() ? { workingDir: f.workingDir.trim() } : {}),
    ...(f.user.trim() ? { user: f.user.trim() } : {}),
    memoryMb: num(f.memoryMb),
    cpus: num(f.cpus),
    network: f.network,
    pullPolicy: f.pullPolicy,
  };
}
