'use client';
// The job form's alert settings: follow the tenant policy, or settings of the job's own (the
// same rule fields as the policy, and the policy's channels or a chosen few). Sent only when
// changed here, so saving other fields never rewrites a job's alerts.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { Checkbox } from '@/components/field';
import { useTRPC } from '../../../_lib/trpc';
import { AlertRuleFields } from '../../alerts/rule-fields';
import { channelTarget, rulesDraft, rulesInWords } from '../../alerts/rules';
import { Section, type SectionProps } from './job-form-sections';
import type { AlertsDraft } from './model';
import { RadioCards } from './options';

export function AlertsSection({ form, set, at }: SectionProps) {
  const trpc = useTRPC();
  const policy = useQuery(trpc.alerts.policy.queryOptions());
  const channels = useQuery(trpc.alerts.channels.queryOptions());
  const draft = form.alerts;
  const change = (patch: Partial<AlertsDraft>) => set({ alerts: { ...draft, ...patch, touched: true } });
  const policyWords = policy.data
    ? rulesInWords(policy.data)
        .map((r) => `${r.label}: ${r.value.toLowerCase()}`)
        .join(' · ')
    : 'The workspace default.';
  const chosen = draft.channels ?? [];

  return (
    <div id="alerts" className="scroll-mt-4">
      <Section
        title="Alerts"
        description={
          <>
            When this job opens an incident and whom it tells. The tenant policy is on the{' '}
            <Link href="/alerts">Alerts</Link> page.
          </>
        }
      >
        <div className="space-y-5">
          <RadioCards
            legend="Alert settings"
            name="alerts-mode"
            value={draft.own ? 'own' : 'policy'}
            options={[
              { value: 'policy', label: 'Tenant policy', help: policyWords },
              { value: 'own', label: 'Settings of its own', help: 'Rules for this job alone.' },
            ]}
            onChange={(mode) => {
              const own = mode === 'own';
              // First switch to own settings: start from what the policy does now.
              const seed = own && !draft.own && !draft.touched && policy.data ? rulesDraft(policy.data) : null;
              change({ own, ...(seed ? { rules: seed } : {}) });
            }}
            errors={at('alerts').filter(() => !draft.own)}
          />
          {draft.own ? (
            <>
              <AlertRuleFields
                draft={draft.rules}
                set={(patch) => change({ rules: { ...draft.rules, ...patch } })}
                at={at}
                prefix="alerts."
              />
              <RadioCards
                legend="Channels"
                name="alerts-channels"
                value={draft.channels === null ? 'policy' : 'chosen'}
                options={[
                  { value: 'policy', label: "The policy's channels", help: 'Whatever the tenant policy sends to.' },
                  { value: 'chosen', label: 'Only these', help: 'The channels ticked below; none = send nothing.' },
                ]}
                onChange={(mode) => change({ channels: mode === 'policy' ? null : chosen })}
                errors={at('alerts.channels')}
              />
              {draft.channels !== null ? (
                <fieldset className="space-y-1.5">
                  <legend className="sr-only">Channels for this job</legend>
                  {channels.data?.data.length ? (
                    channels.data.data.map((c) => (
                      <div key={c.id}>
                        <Checkbox
                          label={`${c.type}: ${channelTarget(c)}`}
                          checked={chosen.includes(c.id)}
                          onChange={(e) =>
                            change({
                              channels: e.target.checked ? [...chosen, c.id] : chosen.filter((id) => id !== c.id),
                            })
                          }
                        />
                      </div>
                    ))
                  ) : (
                    <p className="text-sm text-slate-500">
                      No channels yet: add them on the <Link href="/alerts">Alerts</Link> page.
                    </p>
                  )}
                </fieldset>
              ) : null}
            </>
          ) : null}
        </div>
      </Section>
    </div>
  );
}
