// The SSRF guard without the network: a fake resolver *returns* internal and public
// addresses, and we assert on what the lookup hands back (or refuses). Nothing here
// connects anywhere except the loopback server that must never see a connection.
import { createServer, type Server } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  checkTarget,
  createGuardedConnector,
  createGuardedLookup,
  InvalidTargetError,
  TargetRefusedError,
  type ResolvedAddress,
} from './ssrf-guard';

type LookupResult = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function lookupWith(
  answers: ResolvedAddress[] | Error,
  host: string,
  opts: { all?: boolean; family?: number } = {},
  allowPrivate = false,
) {
  const resolver = vi.fn(async () => {
    if (answers instanceof Error) throw answers;
    return answers;
  });
  const lookup = createGuardedLookup({ allowPrivate, resolver });
  const result = new Promise<LookupResult>((resolve) => {
    lookup(host, opts, (err, address, family) => resolve({ err, address, family }));
  });
  return { resolver, result };
}

describe('createGuardedLookup', () => {
  it.each([
    ['10.0.0.5', 4, 'private'],
    ['169.254.169.254', 4, 'metadata'],
    ['127.0.0.1', 4, 'loopback'],
    ['2001:db8::1', 6, 'documentation'],
    ['fd00:ec2::254', 6, 'metadata'],
    ['::ffff:10.1.2.3', 6, 'private'],
  ])('refuses a host that resolves to %s (%s)', async (address, family, cls) => {
    const { result } = lookupWith([{ address, family }], 'hooks.example.com');
    const { err } = await result;
    expect(err).toBeInstanceOf(TargetRefusedError);
    // The message is shown to anyone who can read the run: it never carries the DNS answer.
    expect(err!.message).toBe(
      'refused: target hooks.example.com does not resolve to a public address; set BELFRY_ALLOW_PRIVATE_TARGETS=1 for development',
    );
    expect(err!.message).not.toContain(address);
    expect((err as TargetRefusedError).kind).toBe('refused');
    expect((err as TargetRefusedError).address).toBe(address);
    expect((err as TargetRefusedError).addressClass).toBe(cls);
  });

  it('returns exactly the checked public address (single-address form)', async () => {
    const { result } = lookupWith([{ address: '93.184.216.34', family: 4 }], 'hooks.example.com');
    expect(await result).toEqual({ err: null, address: '93.184.216.34', family: 4 });
  });

  it('returns every checked address for options.all (Happy Eyeballs)', async () => {
    const answers = [
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ];
    const { result } = lookupWith(answers, 'hooks.example.com', { all: true });
    expect(await result).toEqual({ err: null, address: answers, family: undefined });
  });

  it('honours the family hint', async () => {
    const answers = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];
    const { result } = lookupWith(answers, 'hooks.example.com', { family: 6 });
    expect(await result).toMatchObject({ err: null, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
  });

  it('refuses the whole host when any answer is internal (no picking the good one)', async () => {
    const answers = [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const { result } = lookupWith(answers, 'rebind.example.com', { all: true });
    const { err } = await result;
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect(err!.message).not.toContain('10.0.0.5');
    expect(err as TargetRefusedError).toMatchObject({ address: '10.0.0.5', addressClass: 'private' });
  });

  it('refuses an answer it cannot parse (fails closed)', async () => {
    const { result } = lookupWith([{ address: 'not-an-ip', family: 4 }], 'odd.example.com');
    const { err } = await result;
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect((err as TargetRefusedError).addressClass).toBe('unparseable');
  });

  it('lets internal addresses through when allowPrivate is set', async () => {
    const { result } = lookupWith([{ address: '10.0.0.5', family: 4 }], 'internal.example.com', {}, true);
    expect(await result).toEqual({ err: null, address: '10.0.0.5', family: 4 });
  });

  it('classifies IP-literal spellings itself instead of asking the resolver', async () => {
    const { resolver, result } = lookupWith([{ address: '93.184.216.34', family: 4 }], '0x7f.1');
    const { err } = await result;
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect(err!.message).toContain('127.0.0.1 (loopback)');
    expect(resolver).not.toHaveBeenCalled();
  });

  it('treats a malformed IP-looking host as invalid', async () => {
    const { result } = lookupWith([], '1.2.3.09');
    expect((await result).err).toBeInstanceOf(InvalidTargetError);
  });

  it('reports an empty answer as ENOTFOUND and passes resolver errors through', async () => {
    const empty = await lookupWith([], 'nothing.example.com').result;
    expect(empty.err?.code).toBe('ENOTFOUND');
    const failure = Object.assign(new Error('getaddrinfo EAI_AGAIN x'), { code: 'EAI_AGAIN' });
    const failed = await lookupWith(failure, 'x.example.com').result;
    expect(failed.err).toBe(failure);
  });
});

describe('checkTarget', () => {
  const strict = { allowPrivate: false };

  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'https://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://10.0.0.5:8080/hook',
  ])('refuses the literal %s before connecting', (raw) => {
    expect(() => checkTarget(new URL(raw), strict)).toThrow(TargetRefusedError);
  });

  it('allows public literals and leaves names to connect time', () => {
    expect(checkTarget(new URL('http://93.184.216.34/hook'), strict)).toBe('93.184.216.34');
    expect(checkTarget(new URL('https://hooks.example.com/x'), strict)).toBeNull();
  });

  it('allows internal literals only with allowPrivate', () => {
    expect(checkTarget(new URL('http://127.0.0.1:3000/'), { allowPrivate: true })).toBe('127.0.0.1');
  });

  it('rejects other schemes and embedded credentials as invalid', () => {
    for (const raw of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'https://user:pw@example.com/',
    ]) {
      expect(() => checkTarget(new URL(raw), strict), raw).toThrow(InvalidTargetError);
    }
  });
});

describe('createGuardedConnector', () => {
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function connect(hostname: string, allowPrivate: boolean) {
    const connector = createGuardedConnector({ allowPrivate });
    return new Promise<{ err: Error | null; socket: unknown }>((resolve) => {
      connector({ hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) }, (err, socket) => {
        socket?.destroy();
        resolve({ err, socket });
      });
    });
  }

  it('refuses IP-literal hosts, which never reach a lookup function, without opening a socket', async () => {
    const { err, socket } = await connect('127.0.0.1', false);
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect(socket).toBeNull();
    expect(connections).toBe(0);
  });

  it('refuses names through the guarded lookup', async () => {
    const { err } = await connect('localhost', false);
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect(err!.message).toContain('target localhost does not resolve to a public address');
    expect(err!.message).not.toContain('127.0.0.1');
    expect(connections).toBe(0);
  });

  it('connects when private targets are allowed', async () => {
    const { err } = await connect('127.0.0.1', true);
    expect(err).toBeNull();
  });
});
