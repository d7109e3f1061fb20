'use client';
// What a workspace with no jobs shows: three ways to create the first one (here, curl, the
// CLI) with this server's real address, and, for admins, a key to paste into the examples.
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { Card } from '@/components/card';
import { CodeBlock } from '@/components/copy';
import { Notice } from '@/components/empty';
import { Tabs } from '@/components/tabs';
import { errorMessage } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';

export function GettingStarted({ canWrite }: { canWrite: boolean }) {
  const trpc = useTRPC();
  const isAdmin = useCan('admin');
  const [origin, setOrigin] = useState('http://localhost:3000');
  const [tab, setTab] = useState<'curl' | 'cli'>('curl');
  useEffect(() => setOrigin(window.location.origin), []);
  const createKey = useMutation(trpc.apiKeys.create.mutationOptions());
  const key = createKey.data?.key ?? '$BELFRY_API_KEY';

  const body = JSON.stringify(
    {
      name: 'daily-report',
      schedule: { type: 'cron', expression: '0 7 * * *', timezone: 'Europe/Berlin' },
      target: { type: 'http', url: 'https://example.com/hooks/daily-report', method: 'POST' },
      payload: { report: 'daily' },
    },
    null,
    2,
  );
  const curl = `curl -X POST ${origin}/api/v1/jobs \\
  -H "Authorization: Bearer ${key}" \\
  -H "Content-Type: application/json" \\
  -d '${body.replace(/'/g, "'\\''")}'`;
  const cli = `npx belfry login --url ${origin} --token ${key}
npx belfry jobs create --name daily-report \\
  --cron "0 7 * * *" --timezone Europe/Berlin \\
  --url https://example.com/hooks/daily-report \\
  --payload '{"report":"daily"}'`;

  return (
    <div className="space-y-6">
      <div className="rounded-lg border border-indigo-100 bg-gradient-to-br from-indigo-50 to-white p-6">
        <h2 className="text-lg font-semibold text-slate-900">Create your first job</h2>
        <p className="mt-1 max-w-2xl text-sm text-slate-600">
          A job is a webhook Belfry calls for you: once at a set time, on a cron schedule in any time zone, or every N
          seconds. Each call is signed, retried with backoff when it fails, and recorded here with every attempt. Create
          one in the dashboard, or from your code with the REST API or the CLI.
        </p>
        {canWrite ? (
          <ButtonLink href="/jobs/new" variant="primary" className="mt-4">
            Create a job
          </ButtonLink>
        ) : (
          <p className="mt-4 text-sm text-slate-500">
            Your role is viewer: ask an admin to create jobs or to change your role.
          </p>
        )}
      </div>
      <Card
        title="From your code or terminal"
        description="Create the same job with the REST API or the CLI."
        actions={
          <Tabs
            label="Example"
            value={tab}
            onChange={setTab}
            options={[
              { value: 'curl', label: 'curl' },
              { value: 'cli', label: 'CLI' },
            ]}
          />
        }
      >
        {tab === 'curl' ? <CodeBlock code={curl} /> : <CodeBlock code={cli} />}
        <p className="mt-3 text-xs text-slate-500">
          The full API is described at{' '}
          <a className="font-mono text-indigo-600 hover:underline" href={`${origin}/api/v1/openapi.json`}>
            {origin}/api/v1/openapi.json
          </a>
          .
        </p>
      </Card>
      <Card title="An API key for these examples">
        {createKey.data ? (
          <Notice tone="success">
            Key <strong>{createKey.data.apiKey.name}</strong> created and filled in above. Copy it now: it is shown only
            once. Manage keys on the API keys page.
          </Notice>
        ) : isAdmin ? (
          <div className="flex flex-wrap items-center gap-3">
            <p className="text-sm text-slate-600">
              The examples use <code className="font-mono">$BELFRY_API_KEY</code>. Create a key that may read and write
              jobs and runs, and it is filled in for you.
            </p>
            <Button
              busy={createKey.isPending}
              onClick={() =>
                createKey.mutate({
                  name: 'getting started',
                  scopes: ['jobs:read', 'jobs:write', 'runs:read', 'runs:write'],
                })
              }
            >
              Create a key
            </Button>
            {createKey.error ? <p className="text-sm text-rose-700">{errorMessage(createKey.error)}</p> : null}
          </div>
        ) : (
          <p className="text-sm text-slate-600">
            Ask an admin of this workspace for an API key with the jobs and runs scopes.
          </p>
        )}
      </Card>
    </div>
  );
}
