'use client';
// The workspace's API keys: prefix, scopes, last use, expiry, status, and Revoke.
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { Table, TableHead, TBody, Td } from '@/components/table';
import { When } from '../../_lib/when';
import type { Outputs } from '../../_lib/trpc';

type ApiKey = Outputs['apiKeys']['list'][number];

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
      <TableHead columns={['Name', 'Key', 'Scopes', 'Last used', 'Created', 'Expires', 'Status']} actions />
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
              <Td className="whitespace-nowrap">
                <When at={k.lastUsedAt} now={now} never="Never" />
              </Td>
              <Td className="whitespace-nowrap">
                <When at={k.createdAt} now={now} />
              </Td>
              <Td className="whitespace-nowrap">
                <When at={k.expiresAt} now={now} never="Never" />
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
                  <Button size="sm" variant="ghost-danger" onClick={() => onRevoke({ id: k.id, name: k.name })}>
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
