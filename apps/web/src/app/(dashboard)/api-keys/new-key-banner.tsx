'use client';
// A key just created: shown this once, with a copy button and a request to try it with.
import { Button } from '@/components/button';
import { CodeBlock, CopyButton } from '@/components/copy';

export function NewKeyBanner({ name, apiKey, onDone }: { name: string; apiKey: string; onDone: () => void }) {
  return (
    <div className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 p-4">
      <p className="text-sm font-medium text-emerald-900">
        Key “{name}” created. Copy it now: this is the only time it is shown.
      </p>
      <div className="mt-2 flex items-center gap-2">
        <code
          data-testid="new-api-key"
          className="min-w-0 flex-1 truncate rounded bg-white px-2.5 py-1.5 font-mono text-sm ring-1 ring-emerald-200"
        >
          {apiKey}
        </code>
        <CopyButton text={apiKey} size="md" />
        <Button variant="ghost" onClick={onDone}>
          Done
        </Button>
      </div>
      <div className="mt-3">
        <CodeBlock
          label="Try it"
          code={`curl -H "Authorization: Bearer ${apiKey}" ${typeof window === 'undefined' ? '' : window.location.origin}/api/v1/jobs`}
        />
      </div>
    </div>
  );
}
