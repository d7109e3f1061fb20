'use client';
// Alerts: the tenant's channels (add one, send a test, delete) and the default alert policy
// that jobs without their own `alerts` follow (docs/alerts.md).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { Card, PageHeader } from '@/components/card';
import { Checkbox } from '@/components/field';
import { Empty, ErrorState } from '@/components/empty';
import { SelectField, TextField } from '@/components/form-fields';
import { Loading } from '@/components/spinner';
import { Table, TBody, Td, Th } from '@/components/table';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';

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

function where(c: { type: string; to?: string[]; url?: string | null; routingKey?: string }): string {
  if (c.type === 'email') return (c.to ?? []).join(', ');
  if (c.type === 'pagerduty') return `routing key ${c.routingKey ?? ''}`;
  return c.url ?? '';
}

function Channels() {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.alerts.channels.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.alerts.channels.queryKey() });
  const [results, setResults] = useState<Record<string, string>>({});
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
      {channels.isPending ? (
        <Loading />
      ) : channels.isError ? (
        <ErrorState error={errorMessage(channels.error)} retry={() => void channels.refetch()} />
      ) : channels.data.data.length === 0 ? (
        <Empty title="No alert channels yet">Add one below: e-mail, Slack, a signed webhook or PagerDuty.</Empty>
      ) : (
        <Table label="Alert channels">
          <thead>
            <tr>
              <Th>Type</Th>
              <Th>Where</Th>
              <Th>Test</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <TBody>
            {channels.data.data.map((c) => (
              <tr key={c.id}>
                <Td>
                  <Badge tone="indigo">{c.type}</Badge>
                </Td>
                <Td className="font-mono text-xs">{where(c)}</Td>
                <Td>{results[c.id] ?? ''}</Td>
                <Td className="text-right whitespace-nowrap">
                  <Button
                    size="sm"
                    busy={test.isPending && test.variables?.id === c.id}
                    onClick={() => test.mutate({ id: c.id })}
                  >
                    Send test
                  </Button>{' '}
                  <Button size="sm" variant="ghost" onClick={() => remove.mutate({ id: c.id })}>
                    Delete
                  </Button>
                </Td>
              </tr>
            ))}
          </TBody>
        </Table>
      )}
      <div className="border-t border-slate-200 p-5">
        <AddChannel onAdded={() => void refresh()} />
      </div>
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
  if (policy.isPending) return <Loading />;
  if (policy.isError) return <ErrorState error={errorMessage(policy.error)} retry={() => void policy.refetch()} />;
  return <PolicyForm key={JSON.stringify(policy.data)} initial={policy.data} />;
}

function PolicyForm({
  initial,
}: {
  initial: {
    onDead: boolean;
    afterConsecutiveFailures: number | null;
    lateAfterSeconds: number | null;
    notifyRecovery: boolean;
    channels: string[] | null;
  };
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [onDead, setOnDead] = useState(initial.onDead);
  const [notifyRecovery, setNotifyRecovery] = useState(initial.notifyRecovery);
  const [failures, setFailures] = useState(initial.afterConsecutiveFailures?.toString() ?? '');
  const [late, setLate] = useState(initial.lateAfterSeconds?.toString() ?? '');
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
    save.mutate({
      channels: initial.channels,
      onDead,
      notifyRecovery,
      afterConsecutiveFailures: failures ? Number(failures) : null,
      lateAfterSeconds: late ? Number(late) : null,
    });
  };
  return (
    <Card title="Default policy" description="Jobs follow it unless they have alert settings of their own.">
      <form onSubmit={submit} className="space-y-4" aria-label="Alert policy">
        <Checkbox
          label="Open an incident when a run goes dead"
          checked={onDead}
          onChange={(e) => setOnDead(e.target.checked)}
        />
        <TextField
          label="Open an incident after this many failures in a row"
          hint="1 to 100; empty = off"
          type="number"
          min={1}
          max={100}
          value={failures}
          onChange={(e) => setFailures(e.target.value)}
          fieldClassName="max-w-sm"
        />
        <TextField
          label="Late after (seconds)"
          hint="An occurrence not started this long after it was due opens a late incident; 5 to 86400; empty = off"
          type="number"
          min={5}
          max={86400}
          value={late}
          onChange={(e) => setLate(e.target.value)}
          fieldClassName="max-w-sm"
        />
        <Checkbox
          label="Send a notice when an incident resolves"
          checked={notifyRecovery}
          onChange={(e) => setNotifyRecovery(e.target.checked)}
        />
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save policy
        </Button>
      </form>
    </Card>
  );
}
