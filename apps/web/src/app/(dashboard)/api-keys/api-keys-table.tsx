'use client';
// The workspace's API keys: prefix, scopes, last use, expiry, status, and Revoke.
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { Table, TBody, Td, Th } from '@/components/table';
import { formatLocal, relative } from '../../_lib/time';
import type { Outputs } from '../../_lib/trpc';

type ApiKey = Outputs['apiKeys']['list'][number];

function Never() {
  return <span className="text-slate-400">Never</span>;
}

export function ApiKeysTable({
  keys,
  now,
  onRevoke,
}: {
  keys: ApiKey[];
  now: number;
  onRevoke: (key: { id: string; name: string }) => void;
}) {
  return (
    <Table label="API keys">
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Key</Th>
          <Th>Scopes</Th>
          <Th>Last used</Th>
          <Th>Created</Th>
          <Th>Expires</Th>
          <Th>Status</Th>
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        </tr>
      </thead>
      <TBody>
        {keys.map((k) => {
          const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= now;
          return (
            <tr key={k.id} className={k.revokedAt ? 'text-slate-400' : ''}>
              <Td className="font-medium text-slate-900">{k.name}</Td>
              <Td className="font-mono text-xs">{k.prefix}…</Td>
              <Td>
                <div className="flex flex-wrap gap-1">
                  {k.scopes.map((s) => (
                    <Badge key={s} tone={s === 'admin' ? 'indigo' : 'slate'}>
                      {s}
                    </Badge>
                  ))}
                </div>
              </Td>
              <Td className="whitespace-nowrap" title={k.lastUsedAt ? formatLocal(k.lastUsedAt) : undefined}>
                {k.lastUsedAt ? relative(k.lastUsedAt, now) : <Never />}
              </Td>
              <Td className="whitespace-nowrap" title={formatLocal(k.createdAt)}>
                {relative(k.createdAt, now)}
              </Td>
              <Td className="whitespace-nowrap" title={k.expiresAt ? formatLocal(k.expiresAt) : undefined}>
                {k.expiresAt ? relative(k.expiresAt, now) : <Never />}
              </Td>
              <Td>
                {k.revokedAt ? (
                  <Badge tone="zinc">Revoked</Badge>
                ) : expired ? (
                  <Badge tone="amber">Expired</Badge>
                ) : (
                  <Badge tone="green">Active</Badge>
                )}
              </Td>
              <Td className="text-right">
                {!k.revokedAt ? (
                  <Button
                    size="sm"
                    variant="ghost"
                    className="text-rose-700 hover:bg-rose-50"
                    onClick={() => onRevoke({ id: k.id, name: k.name })}
                  >
                    Revoke
                  </Button>
                ) : null}
              </Td>
            </tr>
          );
        })}
      </TBody>
    </Table>
  );
}
