// Broker URLs (amqp, nats targets): the schema half — which schemes a kind accepts, the shape
// checks that keep what is stored exactly what was validated — and the masking of the password a
// URL may carry (docs/api.md, "Write-only secrets in targets": `amqp://user:***@host/vhost`).
// Unlike HTTP targets, broker URLs may carry credentials: that is how AMQP and NATS authenticate.
import { hasControlCharacter, parseHostAsIp, textProblem } from '@belfry/core';
import { z } from 'zod';
import { SECRET_MASK } from '../kind';

export const MAX_BROKER_URL_LENGTH = 2048;

export interface BrokerUrlRules {
  /** accepted schemes, without the colon: ['amqp', 'amqps'] */
  schemes: readonly string[];
  /** may the URL have a path (the AMQP vhost)? At most one segment when it may. */
  path: boolean;
}

/** Null for an acceptable broker URL, else why it is not. */
export function brokerUrlProblem(value: string, rules: BrokerUrlRules): string | null {
  const schemes = rules.schemes.map((s) => `${s}://`).join(' or ');
  if (hasControlCharacter(value, true)) return 'must not contain spaces or control characters';
  const text = textProblem(value);
  if (text) return text;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an absolute ${schemes} URL`;
  }
  if (!rules.schemes.includes(url.protocol.slice(0, -1))) return `must use ${schemes}`;
  if (url.hostname === '') return 'must have a host';
  try {
    parseHostAsIp(url.hostname);
  } catch {
    return `has an invalid host '${url.hostname}'`;
  }
  if (url.search !== '' || url.hash !== '') return 'must not have a query string or fragment';
  if (rules.path) {
    if (url.pathname.slice(1).includes('/'))
      return 'may name one virtual host after the host (encode a "/" in it as %2F)';
  } else if (url.pathname !== '' && url.pathname !== '/') return 'must not have a path';
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
    decodeURIComponent(url.pathname);
  } catch {
    return 'has an invalid percent-encoding';
  }
  return null;
}

export function brokerUrlSchema(rules: BrokerUrlRules & { example: string; description: string }) {
  return z
    .string()
    .min(1, { error: 'is required' })
    .max(MAX_BROKER_URL_LENGTH, { error: `must be at most ${MAX_BROKER_URL_LENGTH} characters` })
    .superRefine((value, ctx) => {
      const problem = brokerUrlProblem(value, rules);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ format: 'uri', description: rules.description, example: rules.example });
}

/** Where the password of `scheme://user:password@host` sits in the text, if it has one. */
function passwordSpan(url: string): { start: number; end: number } | null {
  const scheme = url.indexOf('://');
  if (scheme < 0) return null;
  const authorityStart = scheme + 3;
  const authorityEnd = url.slice(authorityStart).search(/[/?#]/);
  const authority =
    authorityEnd < 0 ? url.slice(authorityStart) : url.slice(authorityStart, authorityStart + authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at < 0) return null;
  const colon = authority.indexOf(':');
  if (colon < 0 || colon > at || colon === at - 1) return null;
  return { start: authorityStart + colon + 1, end: authorityStart + at };
}

/** The URL with its password (if any) replaced by `***`; everything else as written. */
export function maskUrlPassword(url: string): string {
  const span = passwordSpan(url);
  return span ? `${url.slice(0, span.start)}${SECRET_MASK}${url.slice(span.end)}` : url;
}

/** The URL without its credentials, for error messages and logs: `amqp://host:5672/vhost`. */
export function describeBroker(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the broker';
  }
}
