// Target URLs parsed and passed through the static SSRF check once per node, not per delivery.
import { checkTarget, InvalidTargetError } from '../guard/ssrf-guard';
import type { OriginOf } from './ready-sockets';

// Parsed and vetted target URLs kept (see CheckedUrls); most jobs of a node call few URLs.
const CHECKED_URLS_MAX = 4096;

export interface CheckedUrl extends OriginOf {
  origin: string;
  path: string;
  host: string;
}

/**
 * The URL of each target, parsed and passed through the static SSRF check once rather than on
 * every delivery (the parse and the IP-literal check were ~2 % of a busy node's CPU). Only
 * URLs that passed are kept, and the check depends on nothing but the URL and the handler's
 * fixed allowPrivate; resolved addresses are still checked on every connect by the guard.
 * Cleared when full: a node calling more distinct URLs just parses more often.
 */
export class CheckedUrls {
  private readonly urls = new Map<string, CheckedUrl>();

  constructor(private readonly allowPrivate: boolean) {}

  get(raw: string): CheckedUrl {
    const hit = this.urls.get(raw);
    if (hit) return hit;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InvalidTargetError(`invalid URL ${JSON.stringify(raw)}`);
    }
    checkTarget(url, { allowPrivate: this.allowPrivate });
    const checked = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      host: url.host,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
    };
    if (this.urls.size >= CHECKED_URLS_MAX) this.urls.clear();
    this.urls.set(raw, checked);
    return checked;
  }
}
