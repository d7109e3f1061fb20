'use client';
// Alerts: the tenant's channels (add one, send a test, delete) and the default alert policy
// that jobs without their own `alerts` follow (docs/alerts.md).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { Card, PageHeader } from '@/components/card';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { SelectField, TextField } from '@/components/form-fields';
import { QueryState } from '@/components/query-state';
import { Table, TableHead, TBody, Td } from '@/components/table';
import { useToast } from '@/components/toast';
import { errorMessage, errorsAt, fieldErrors } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';
import { AlertRuleFields } from './rule-fields';
import { type AlertRules, channelTarget, rulesDraft, rulesOf } from './rules';

type ChannelType = 'email' | 'slack' | 'webhook' | 'pagerduty';

export function AlertsPage() {
  return (
    <>
      <PageHeader
        title="Alerts"
        description="Where Belfry tells you about dead, failing and late jobs: once when an incident opens, once when it resolves."
      />
      <div className="space-y-6">
        <Channels />
        <Policy />
      </div>
    </>
  );
}

function Channels() {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.alerts.channels.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.alerts.channels.queryKey() });
  const [results, setResults] = useState<Record<string, string>>({});
  const [deleting, setDeleting] = useState<{ id: string; type: string; target: string } | null>(null);
  const test = useMutation(
    trpc.alerts.testChannel.mutationOptions({
      onSuccess: (r, input) =>
        setResults((all) => ({ ...all, [input.id]: r.delivered ? 'Delivered' : `Not delivered: ${r.error ?? ''}` })),
      onError: (err) => toast(errorMessage(err), 'error'),
    }),
  );
  const remove = useMutation(
    trpc.alerts.deleteChannel.mutationOptions({
      onSuccess: () => {
        toast('Channel deleted');
        setDeleting(null);
        void refresh();
      },
      onError: (err) => toast(errorMessage(err), 'error'),
    }),
  );
  return (
    <Card
      title="Channels"
      description="Secrets (a Slack URL, a webhook URL's query, a PagerDuty key) are write-only."
      padded={false}
    >
      <QueryState
        query={channels}
        isEmpty={(list) => list.data.length === 0}
        empty={{
          title: 'No alert channels yet',
          text: 'Add one below: e-mail, Slack, a signed webhook or PagerDuty.',
        }}
      >
        {(list) => (
          <Table label="Alert channels">
            <TableHead columns={['Type', 'Where', 'Test']} actions />
            <TBody>
              {list.data.map((c) => (
                <tr key={c.id}>
                  <Td>
                    <Badge tone="indigo">{c.type}</Badge>
                  </Td>
                  <Td className="font-mono text-xs">{channelTarget(c)}</Td>
                  <Td>{results[c.id] ?? ''}</Td>
                  <Td className="text-right whitespace-nowrap">
                    <Button
                      size="sm"
                      busy={test.isPending && test.variables?.id === c.id}
                      onClick={() => test.mutate({ id: c.id })}
                    >
                      Send test
                    </Button>{' '}
                    <Button
                      size="sm"
                      variant="ghost-danger"
                      onClick={() => setDeleting({ id: c.id, type: c.type, target: channelTarget(c) })}
                    >
                      Delete
                    </Button>
                  </Td>
                </tr>
              ))}
            </TBody>
          </Table>
        )}
      </QueryState>
      <div className="border-t border-slate-200 p-5">
        <AddChannel onAdded={() => void refresh()} />
      </div>
      <ConfirmDialog
        open={deleting !== null}
        onCancel={() => setDeleting(null)}
        title={`Delete this ${deleting?.type ?? ''} channel?`}
        description={`Nothing is sent to ${deleting?.target ?? 'it'} any more; notifications still pending to it fail. Jobs and the policy that name it send to their other channels.`}
        confirmLabel="Delete channel"
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
      />
    </Card>
  );
}

function AddChannel({ onAdded }: { onAdded: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const [type, setType] = useState<ChannelType>('email');
  const [value, setValue] = useState('');
  const [url, setUrl] = useState('');
  const create = useMutation(
    trpc.alerts.createChannel.mutationOptions({
      onSuccess: () => {
        toast('Channel added');
        setValue('');
        setUrl('');
        onAdded();
      },
      onError: (err) => toast(errorMessage(err), 'error'),
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (type === 'email')
      create.mutate({
        type,
        to: value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      });
    else if (type === 'pagerduty') create.mutate({ type, routingKey: value, ...(url ? { url } : {}) });
    else create.mutate({ type, url: value });
  };
  const label = type === 'email' ? 'Addresses (comma-separated)' : type === 'pagerduty' ? 'Routing key' : 'Webhook URL';
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3" aria-label="Add a channel">
      <SelectField
        label="Type"
        value={type}
        onChange={(e) => setType(e.target.value as ChannelType)}
        fieldClassName="w-40"
      >
        <option value="email">E-mail</option>
        <option value="slack">Slack</option>
        <option value="webhook">Webhook</option>
        <option value="pagerduty">PagerDuty</option>
      </SelectField>
      <TextField
        label={label}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        required
        fieldClassName="min-w-80 flex-1"
      />
      {type === 'pagerduty' ? (
        <TextField
          label="Events API URL"
          optional
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          fieldClassName="w-72"
        />
      ) : null}
      <Button type="submit" variant="primary" busy={create.isPending}>
        Add channel
      </Button>
    </form>
  );
}

function Policy() {
  const trpc = useTRPC();
  const policy = useQuery(trpc.alerts.policy.queryOptions());
  return <QueryState query={policy}>{(data) => <PolicyForm key={JSON.stringify(data)} initial={data} />}</QueryState>;
}

function PolicyForm({ initial }: { initial: AlertRules & { channels: string[] | null } }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => rulesDraft(initial));
  const save = useMutation(
    trpc.alerts.putPolicy.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.alerts.policy.queryKey(), data);
        toast('Alert policy saved');
      },
      onError: (err) => toast(errorMessage(err), 'error'),
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ channels: initial.channels, ...rulesOf(draft) });
  };
  return (
    <Card title="Default policy" description="Jobs follow it unless they have alert settings of their own.">
      <form onSubmit={submit} className="space-y-4" aria-label="Alert policy">
        <AlertRuleFields
          draft={draft}
          set={(patch) => setDraft((d) => ({ ...d, ...patch }))}
          at={(path) => errorsAt(fieldErrors(save.error), path)}
        />
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save policy
        </Button>
      </form>
    </Card>
  );
}
