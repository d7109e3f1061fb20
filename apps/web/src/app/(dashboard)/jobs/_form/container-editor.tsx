'use client';
// The container target's editor: image, command and entrypoint (one argument per line), env
// (values of secret-looking names read back as *** — leave *** to keep them), limits, network
// and pull policy. Server errors land under their field (target.<field>).
import { SelectField, TextareaField, TextField } from '@/components/form-fields';
import type { FieldError } from '../../../_lib/errors';
import { type ContainerFields, NETWORKS, PULL_POLICIES } from './container-model';
import { HeadersEditor } from './headers-editor';

export function ContainerEditor({
  fields,
  set,
  at,
  errors,
}: {
  fields: ContainerFields;
  set: (patch: Partial<ContainerFields>) => void;
  at: (path: string) => string[];
  errors: FieldError[];
}) {
  return (
    <div className="space-y-4">
      <TextField
        label="Image"
        hint="Must match the operator's allowed images (BELFRY_CONTAINER_IMAGES)."
        errors={at('target.image')}
        value={fields.image}
        onChange={(e) => set({ image: e.target.value })}
        placeholder="registry.example.com/jobs/report:1.4"
        className="font-mono"
        spellCheck={false}
      />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextareaField
          label="Command"
          optional
          hint="One argument per line; the image's CMD when empty."
          errors={at('target.command')}
          rows={3}
          value={fields.command}
          onChange={(e) => set({ command: e.target.value })}
          className="font-mono"
          spellCheck={false}
        />
        <TextareaField
          label="Entrypoint"
          optional
          hint="One argument per line; the image's ENTRYPOINT when empty."
          errors={at('target.entrypoint')}
          rows={3}
          value={fields.entrypoint}
          onChange={(e) => set({ entrypoint: e.target.value })}
          className="font-mono"
          spellCheck={false}
        />
      </div>
      <HeadersEditor
        rows={fields.env}
        onChange={(env) => set({ env })}
        errors={errors}
        field="env"
        noun="variable"
        legend="Environment"
        description="Set in the container besides BELFRY_RUN_ID, BELFRY_JOB_ID, BELFRY_SCHEDULED_TIME, BELFRY_ATTEMPT and BELFRY_PAYLOAD. Values of names with token, secret, key or password are write-only."
        placeholders={['REPORT_KIND', 'daily']}
      />
      <div className="flex flex-wrap gap-3">
        <TextField
          label="Memory"
          suffix="MiB"
          fieldClassName="w-32"
          inputMode="numeric"
          errors={at('target.memoryMb')}
          value={fields.memoryMb}
          onChange={(e) => set({ memoryMb: e.target.value })}
        />
        <TextField
          label="CPUs"
          fieldClassName="w-28"
          inputMode="decimal"
          errors={at('target.cpus')}
          value={fields.cpus}
          onChange={(e) => set({ cpus: e.target.value })}
        />
        <SelectField
          label="Network"
          fieldClassName="w-32"
          errors={at('target.network')}
          value={fields.network}
          onChange={(e) => set({ network: e.target.value as ContainerFields['network'] })}
        >
          {NETWORKS.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </SelectField>
        <SelectField
          label="Pull policy"
          fieldClassName="w-36"
          errors={at('target.pullPolicy')}
          value={fields.pullPolicy}
          onChange={(e) => set({ pullPolicy: e.target.value as ContainerFields['pullPolicy'] })}
        >
          {PULL_POLICIES.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </SelectField>
        <TextField
          label="User"
          optional
          fieldClassName="w-32"
          errors={at('target.user')}
          value={fields.user}
          onChange={(e) => set({ user: e.target.value })}
          placeholder="1000"
          className="font-mono"
        />
        <TextField
          label="Working directory"
          optional
          fieldClassName="w-48"
          errors={at('target.workingDir')}
          value={fields.workingDir}
          onChange={(e) => set({ workingDir: e.target.value })}
          placeholder="/app"
          className="font-mono"
        />
      </div>
    </div>
  );
}
