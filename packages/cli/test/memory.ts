// In-memory harness for unit tests of the command tree: a fake fetch that records requests
// and answers from a script, and a Context whose output is captured.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../src/context';
import { readCliEnv } from '../src/env';
import { run } from '../src/program';

export interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

export type Responder = (req: Recorded) => Response | Promise<Response>;

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': type, ...headers } });
}

export function fakeFetch(respond: Responder): { fetch: typeof fetch; requests: Recorded[] } {
  const requests: Recorded[] = [];
  const impl = async (input: string | URL | Request, init: RequestInit = {}) => {
    const text = typeof init.body === 'string' ? init.body : undefined;
    const req: Recorded = {
      method: init.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init.headers),
      body: text === undefined ? undefined : JSON.parse(text),
    };
    requests.push(req);
    return respond(req);
  };
  return { fetch: impl as typeof fetch, requests };
}

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

export interface MemoryCli {
  ctx: Context;
  requests: Recorded[];
  exec(...argv: string[]): Promise<Outcome>;
}

export function memoryCli(respond: Responder, options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): MemoryCli {
  const { fetch, requests } = fakeFetch(respond);
  const home = mkdtempSync(join(tmpdir(), 'belfry-cli-home-'));
  const env = readCliEnv({ HOME: home, BELFRY_URL: 'http://belfry.test', BELFRY_TOKEN: 'bfy_test', ...options.env });
  let stdout = '';
  let stderr = '';
  const ctx: Context = {
    env,
    io: {
      out: (s) => {
        stdout += s;
      },
      err: (s) => {
        stderr += s;
      },
      readStdin: async () => options.stdin ?? '',
      interactive: false,
      confirm: async () => false,
    },
    now: () => new Date('2026-03-01T12:00:00Z'),
    fetch,
    version: '0.0.0-test',
  };
  return {
    ctx,
    requests,
    async exec(...argv) {
      stdout = '';
      stderr = '';
      const code = await run(argv, ctx);
      return { code, stdout, stderr };
    },
  };
}
