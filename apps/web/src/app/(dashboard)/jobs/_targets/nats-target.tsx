'use client';
// The NATS JetStream target: a server URL with its login and the subject a stream captures;
// headers come from the shared editor.
import type { Target } from '@belfry/client';
import { TextField } from '@/components/form-fields';
import { BrokerUrlField } from './broker-url-field';
import { defineTargetUi } from './kind';

interface NatsDraft {
  url: string;
  subject: string;
}

type NatsTarget = Extract<Target, { type: 'nats' }>;

export const natsUi = defineTargetUi<NatsDraft>({
  type: 'nats',
  label: 'NATS',
  description:
    'A signed message published to NATS JetStream per attempt, with the run id as Nats-Msg-Id. Success is the stream’s acknowledgement.',
  headers: true,
  empty: () => ({ url: '', subject: '' }),
  fromTarget: (t) => (t.type === 'nats' ? { url: t.url, subject: t.subject } : { url: '', subject: '' }),
  toTarget: (d, headers) => ({ type: 'nats', url: d.url.trim(), subject: d.subject.trim(), headers }),
  check: (d) => [
    ...(d.url.trim() ? [] : [{ path: 'target.url', message: 'is required' }]),
    ...(d.subject.trim() ? [] : [{ path: 'target.subject', message: 'is required' }]),
  ],
  fields: ['url', 'subject'],
  summary: (t) => `${(t as NatsTarget).url} → ${(t as NatsTarget).subject}`,
  rows: (t) => [
    [
      'Server',
      <span key="v" className="font-mono text-xs break-all">
        {(t as NatsTarget).url}
      </span>,
    ],
    ['Subject', <code key="v">{(t as NatsTarget).subject}</code>],
  ],
  Editor: ({ draft, set, at }) => (
    <div className="flex flex-wrap gap-3">
      <BrokerUrlField
        value={draft.url}
        onChange={(url) => set({ url })}
        errors={at('target.url')}
        placeholder="nats://user:password@nats.example.com:4222"
        hint="nats:// (or tls:// to require TLS), with a user and password, or a token as the user."
      />
      <TextField
        label="Subject"
        hint="A JetStream stream must capture it."
        errors={at('target.subject')}
        fieldClassName="min-w-[14rem] flex-1"
        value={draft.subject}
        onChange={(e) => set({ subject: e.target.value })}
        placeholder="reports.daily"
        className="font-mono"
        spellCheck={false}
      />
    </div>
  ),
});
