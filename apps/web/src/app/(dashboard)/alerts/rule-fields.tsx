'use client';
// The alert rules as form fields, shared by the tenant's default policy (Alerts page) and a
// job's own settings (the job form): dead runs, failures in a row, late starts, recovery
// notices.
import { Checkbox } from '@/components/field';
import { TextField } from '@/components/form-fields';
import { RULE_NUMBERS, type RulesDraft } from './rules';

export function AlertRuleFields({
  draft,
  set,
  at = () => [],
  prefix = '',
}: {
  draft: RulesDraft;
  set: (patch: Partial<RulesDraft>) => void;
  /** the errors at an API path */
  at?: (path: string) => string[];
  /** the API path the rules sit under ('alerts.' on a job) */
  prefix?: string;
}) {
  return (
    <div className="space-y-4">
      <Checkbox
        label="Open an incident when a run goes dead"
        checked={draft.onDead}
        onChange={(e) => set({ onDead: e.target.checked })}
      />
      {RULE_NUMBERS.map((n) => (
        <TextField
          key={n.key}
          label={n.label}
          hint={n.hint}
          errors={at(`${prefix}${n.path}`)}
          type="number"
          min={n.min}
          max={n.max}
          value={draft[n.key]}
          onChange={(e) => set({ [n.key]: e.target.value })}
          fieldClassName="max-w-sm"
        />
      ))}
      <Checkbox
        label="Send a notice when an incident resolves"
        checked={draft.notifyRecovery}
        onChange={(e) => set({ notifyRecovery: e.target.checked })}
      />
    </div>
  );
}
