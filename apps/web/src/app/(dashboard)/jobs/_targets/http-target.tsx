'use client';
// The HTTP target: a method and a URL; the form's shared headers editor adds its headers.
import type { Target } from '@belfry/client';
import { SelectField, TextField } from '@/components/form-fields';
import { defineTargetUi } from './kind';

export const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type Method = (typeof METHODS)[number];

interface HttpDraft {
  url: string;
  method: Method;
}

type HttpTarget = Extract<Target, { type: 'http' }>;

export const httpUi = defineTargetUi<HttpDraft>({
  type: 'http',
  label: 'HTTP',
  description: 'A signed HTTP request to your endpoint per attempt. 2xx counts as success.',
  headers: true,
  empty: () => ({ url: '', method: 'POST' }),
  fromTarget: (t) => (t.type === 'http' ? { url: t.url, method: t.method } : { url: '', method: 'POST' }),
  toTarget: (d, headers) => ({ type: 'http', url: d.url.trim(), method: d.method, headers }),
  check: (d) => (d.url.trim() ? [] : [{ path: 'target.url', message: 'is required' }]),
  fields: ['url', 'method'],
  summary: (t) => `${(t as HttpTarget).method} ${(t as HttpTarget).url}`,
  rows: (t) => [
    [
      'Request',
      <span key="v" className="font-mono text-xs break-all">
        <strong>{(t as HttpTarget).method}</strong> {(t as HttpTarget).url}
      </span>,
    ],
  ],
  Editor: ({ draft, set, at }) => (
    <div className="flex flex-wrap gap-3">
      <SelectField
        label="Method"
        errors={at('target.method')}
        fieldClassName="w-32"
        value={draft.method}
        onChange={(e) => set({ method: e.target.value as Method })}
      >
        {METHODS.map((m) => (
          <option key={m}>{m}</option>
        ))}
      </SelectField>
      <TextField
        label="URL"
        errors={at('target.url')}
        fieldClassName="min-w-[20rem] flex-1"
        type="url"
        value={draft.url}
        onChange={(e) => set({ url: e.target.value })}
        placeholder="https://example.com/hooks/daily-report"
        className="font-mono"
        spellCheck={false}
      />
    </div>
  ),
});
