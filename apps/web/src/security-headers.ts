// The security headers every response carries, chosen once here and applied by the proxy.
//
// Pages get a Content-Security-Policy that allows only this origin. Next's App Router inlines
// small bootstrap scripts, so script-src keeps 'unsafe-inline' (nonces would force every page
// to render per request for no gain here: no user content is rendered as HTML); what it buys
// is that no script, frame, font or connection can come from anywhere else, and the dashboard
// cannot be framed (clickjacking). API routes answer JSON and set their own CSP where they
// serve a page (the API reference), so they get the rest but no CSP.
// HSTS is sent only when the public URL (NEXTAUTH_URL) is https: over plain http it would be
// ignored at best, and pinning https on a localhost install would break it.

export interface SecurityHeaderOptions {
  /** the public URL is https */
  https: boolean;
  /** `next dev`: React's dev build evaluates code and the dev server talks over a websocket */
  dev: boolean;
  /** a page (HTML) rather than an API route */
  page: boolean;
}

export const HSTS = 'max-age=31536000; includeSubDomains';

export function contentSecurityPolicy(dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? ' ws: wss:' : ''}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function securityHeaders(options: SecurityHeaderOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  };
  if (options.page) headers['content-security-policy'] = contentSecurityPolicy(options.dev);
  if (options.https) headers['strict-transport-security'] = HSTS;
  return headers;
}

/** Whether the public URL this server answers on is https (next-auth reads the same variable). */
export function publicUrlIsHttps(publicUrl: string | undefined): boolean {
  return publicUrl?.trim().toLowerCase().startsWith('https://') ?? false;
}
