// The `http` target kind (docs/api.md, "Targets"; docs/webhooks.md): what a client sends, what the
// API answers, and the rules that keep a delivery unambiguous and safe — http(s) URLs without
// credentials or odd hosts, headers that cannot override the ones Belfry signs. The engine sends
// exactly what is stored here. Its runs travel in the push lane.
import { hasControlCharacter, parseHostAsIp, textProblem } from '@belfry/core';
import { z } from 'zod';
import { TargetHeaders } from '../fields';
import { defineKind } from '../kind';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const MAX_URL_LENGTH = 2048;

/** Null for an acceptable target URL, else why it is not. */
function urlProblem(value: string): string | null {
  // The URL parser silently drops tabs and newlines and trims spaces; what we store must be
  // exactly what we validated.
  if (hasControlCharacter(value, true)) return 'must not contain spaces or control characters';
  const text = textProblem(value);
  if (text) return text;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not contain credentials; send them in a header instead';
  if (url.hostname === '') return 'must have a host';
  try {
    parseHostAsIp(url.hostname);
  } catch {
    return `has an invalid host '${url.hostname}'`;
  }
  return null;
}

// Parsing a URL costs tens of microseconds; the jobs of a batch mostly share a few URLs.
const CHECKED_URLS_MAX = 4_096;
const checkedUrls = new Map<string, string | null>();

function cachedUrlProblem(value: string): string | null {
  const cached = checkedUrls.get(value);
  if (cached !== undefined) return cached;
  const problem = urlProblem(value);
  if (checkedUrls.size >= CHECKED_URLS_MAX) checkedUrls.clear();
  checkedUrls.set(value, problem);
  return problem;
}

function checkUrl(value: string, ctx: z.core.$RefinementCtx<string>): void {
  const problem = cachedUrlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
}

export const TargetUrl = z
  .string()
  .min(1, { error: 'is required' })
  .max(MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` })
  .superRefine(checkUrl)
  .meta({
    format: 'uri',
    description: 'http:// or https:// URL without credentials',
    example: 'https://example.com/hook',
  });

/** `type` may be left out: http is the default kind. */
export const HttpTargetInput = z
  .strictObject({
    type: z.literal('http').default('http'),
    url: TargetUrl,
    method: z.enum(HTTP_METHODS).default('POST'),
    headers: TargetHeaders.default({}),
  })
  .meta({ id: 'HttpTargetInput', description: 'A signed HTTP request per attempt (the default kind)' });

export const HttpTarget = z
  .strictObject({
    type: z.literal('http'),
    url: z.string(),
    method: z.enum(HTTP_METHODS),
    headers: z.record(z.string(), z.string()),
  })
  .meta({ id: 'HttpTarget' });

export const httpKind = defineKind({
  type: 'http',
  lane: 'push',
  input: HttpTargetInput,
  view: HttpTarget,
  toView: (stored) => ({
    type: 'http' as const,
    url: stored.url,
    method: stored.method,
    headers: stored.headers ?? {},
  }),
  // Header values named like credentials (authorization, x-api-key, ...); the URL cannot carry any.
  secrets: { namedMaps: ['headers'] },
});
