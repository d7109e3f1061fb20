'use client';
// The container target: an image, command and entrypoint (one argument per line), env (values
// of names with token, secret, key or password read back as *** — leave *** to keep them),
// limits, network and pull policy. Runs one container per attempt on an engine node's Docker
// Engine; exit code 0 is success. Server errors land under their field (target.<field>).
import type { ReactNode } from 'react';
import { SelectField, TextareaField, TextField } from '@/components/form-fields';
import { HeadersEditor } from '../_form/headers-editor';
import {
  type ContainerFields,
  type ContainerTarget,
  containerFieldsOf,
  containerTargetOf,
  emptyContainerFields,
  NETWORKS,
  PULL_POLICIES,
} from './container-model';
import { defineTargetUi, fieldBinder } from './kind';
import { NameValueList } from './name-value-list';

type Row = [string, ReactNode];

const ENV_DESCRIPTION = (
  <>
    Set in the container besides <code className="font-mono">BELFRY_RUN_ID</code>,{' '}
    <code className="font-mono">BELFRY_JOB_ID</code>, <code className="font-mono">BELFRY_SCHEDULED_TIME</code>,{' '}
    <code className="font-mono">BELFRY_ATTEMPT</code> and <code className="font-mono">BELFRY_PAYLOAD</code>. Values of
    names with <code className="font-mono">token</code>, <code className="font-mono">secret</code>,{' '}
    <code className="font-mono">key</code> or <code className="font-mono">password</code> are write-only: stored
    encrypted and read back as <code className="font-mono">***</code>; leave <code className="font-mono">***</code> to
    keep the stored value.
  </>
);

function Args({ args }: { args: string[] | undefined }) {
  if (!args?.length) return <span className="text-slate-500">From the image</span>;
  return <code className="font-mono text-xs break-all">{JSON.stringify(args)}</code>;
}

export const containerUi = defineTargetUi<ContainerFields>({
  type: 'container',
  label: 'Container',
  description: 'A container started for each run on a Docker Engine. Exit code 0 counts as success.',
  headers: false,
  empty: emptyContainerFields,
  fromTarget: (t) => (t.type === 'container' ? containerFieldsOf(t) : emptyContainerFields()),
  toTarget: (d) => containerTargetOf(d),
  check: (d) => [
    ...(d.image.trim() ? [] : [{ path: 'target.image', message: 'is required' }]),
    ...d.env
      .filter((v) => !v.name.trim() && v.value)
      .map(() => ({ path: 'target.env', message: 'every variable needs a name' })),
  ],
  fields: ['image', 'command', 'entrypoint', 'env', 'workingDir', 'user', 'memoryMb', 'cpus', 'network', 'pullPolicy'],
  summary: (t) => `container ${(t as ContainerTarget).image}`,
  rows: (t): Row[] => {
    const c = t as ContainerTarget;
    return [
      [
        'Image',
        <code key="v" className="font-mono text-xs break-all">
          {c.image}
        </code>,
      ],
      ['Command', <Args key="v" args={c.command} />],
      ...(c.entrypoint ? ([['Entrypoint', <Args key="v" args={c.entrypoint} />]] as Row[]) : []),
      ['Env', <NameValueList key="v" entries={Object.entries(c.env)} />],
      ['Limits', `${c.memoryMb} MiB, ${c.cpus} CPU${c.cpus === 1 ? '' : 's'}, network ${c.network}`],
      ['Pull policy', c.pullPolicy],
      ...(c.user ? ([['User', c.user]] as Row[]) : []),
      ...(c.workingDir ? ([['Working dir', c.workingDir]] as Row[]) : []),
    ];
  },
  Editor: (props) => {
    const { draft, set, errors } = props;
    const field = fieldBinder(props);
    return (
      <div className="space-y-4">
        <TextField
          label="Image"
          hint="Must match the operator's allowed images (BELFRY_CONTAINER_IMAGES)."
          {...field('image')}
          placeholder="registry.example.com/jobs/report:1.4"
          className="font-mono"
          spellCheck={false}
        />
        <div className="grid gap-3 sm:grid-cols-2">
          <TextareaField
            label="Command"
            optional
            hint="One argument per line; the image's CMD when empty."
            {...field('command')}
            rows={3}
            className="font-mono"
            spellCheck={false}
          />
          <TextareaField
            label="Entrypoint"
            optional
            hint="One argument per line; the image's ENTRYPOINT when empty."
            {...field('entrypoint')}
            rows={3}
            className="font-mono"
            spellCheck={false}
          />
        </div>
        <HeadersEditor
          rows={draft.env}
          onChange={(env) => set({ env })}
          errors={errors}
          field="env"
          noun="variable"
          legend="Environment"
          description={ENV_DESCRIPTION}
          placeholders={['REPORT_KIND', 'daily']}
        />
        <div className="flex flex-wrap gap-3">
          <TextField label="Memory" suffix="MiB" fieldClassName="w-32" inputMode="numeric" {...field('memoryMb')} />
          <TextField label="CPUs" fieldClassName="w-28" inputMode="decimal" {...field('cpus')} />
          <SelectField label="Network" fieldClassName="w-32" {...field('network')}>
            {NETWORKS.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </SelectField>
          <SelectField label="Pull policy" fieldClassName="w-36" {...field('pullPolicy')}>
            {PULL_POLICIES.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </SelectField>
          <TextField
            label="User"
            optional
            fieldClassName="w-32"
            {...field('user')}
            placeholder="1000"
            className="font-mono"
          />
          <TextField
            label="Working directory"
            optional
            fieldClassName="w-48"
            {...field('workingDir')}
            placeholder="/app"
            className="font-mono"
          />
        </div>
      </div>
    );
  },
});
