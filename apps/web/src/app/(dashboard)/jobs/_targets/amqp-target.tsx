'use client';
// The RabbitMQ (AMQP 0-9-1) target: a broker URL with its login and vhost, an exchange, a
// routing key and whether messages are persistent; headers come from the shared editor.
import type { Target } from '@belfry/client';
import { TextField } from '@/components/form-fields';
import { BrokerUrlField } from './broker-url-field';
import { defineTargetUi } from './kind';

interface AmqpDraft {
  url: string;
  exchange: string;
  routingKey: string;
  persistent: boolean;
}

type AmqpTarget = Extract<Target, { type: 'amqp' }>;

const empty = (): AmqpDraft => ({ url: '', exchange: '', routingKey: '', persistent: true });

export const amqpUi = defineTargetUi<AmqpDraft>({
  type: 'amqp',
  label: 'RabbitMQ',
  description:
    'A signed message published to a RabbitMQ (AMQP 0-9-1) exchange per attempt. Success is the broker’s publisher confirm; an unroutable message is retried.',
  headers: true,
  empty,
  fromTarget: (t) =>
    t.type === 'amqp'
      ? { url: t.url, exchange: t.exchange, routingKey: t.routingKey, persistent: t.persistent }
      : empty(),
  toTarget: (d, headers) => ({
    type: 'amqp',
    url: d.url.trim(),
    exchange: d.exchange.trim(),
    routingKey: d.routingKey,
    persistent: d.persistent,
    headers,
  }),
  check: (d) => (d.url.trim() ? [] : [{ path: 'target.url', message: 'is required' }]),
  fields: ['url', 'exchange', 'routingKey', 'persistent'],
  summary: (t) => {
    const a = t as AmqpTarget;
    return `${a.url} → ${a.exchange || '(default exchange)'} / ${a.routingKey || '(no routing key)'}`;
  },
  rows: (t) => {
    const a = t as AmqpTarget;
    return [
      [
        'Broker',
        <span key="v" className="font-mono text-xs break-all">
          {a.url}
        </span>,
      ],
      ['Exchange', <code key="v">{a.exchange || '(default exchange)'}</code>],
      ['Routing key', <code key="v">{a.routingKey || '(empty)'}</code>],
      ['Messages', a.persistent ? 'Persistent' : 'Transient'],
    ];
  },
  Editor: ({ draft, set, at }) => (
    <div className="space-y-4">
      <BrokerUrlField
        value={draft.url}
        onChange={(url) => set({ url })}
        errors={at('target.url')}
        placeholder="amqp://user:password@rabbit.example.com:5672/vhost"
        hint="amqp:// or amqps:// (TLS), with the user and password to log in as and an optional virtual host."
      />
      <div className="flex flex-wrap gap-3">
        <TextField
          label="Exchange"
          hint="Leave empty for the default exchange (the routing key is then the queue name)."
          errors={at('target.exchange')}
          fieldClassName="min-w-[14rem] flex-1"
          value={draft.exchange}
          onChange={(e) => set({ exchange: e.target.value })}
          placeholder="jobs"
          className="font-mono"
          spellCheck={false}
        />
        <TextField
          label="Routing key"
          optional
          errors={at('target.routingKey')}
          fieldClassName="min-w-[14rem] flex-1"
          value={draft.routingKey}
          onChange={(e) => set({ routingKey: e.target.value })}
          placeholder="reports"
          className="font-mono"
          spellCheck={false}
        />
      </div>
      <label className="flex items-center gap-2 text-sm text-slate-800">
        <input
          type="checkbox"
          checked={draft.persistent}
          onChange={(e) => set({ persistent: e.target.checked })}
          className="h-4 w-4 accent-indigo-600"
        />
        Persistent messages (survive a broker restart)
      </label>
    </div>
  ),
});
