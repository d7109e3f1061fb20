// The interactive API reference at /api/v1/docs: Scalar's API reference renderer, served from
// this server's own node_modules (no CDN, no fonts from elsewhere), rendering the
// /api/v1/openapi.json this server generates. A tight Content-Security-Policy keeps the page
// from reaching anything but this origin, whatever the renderer would like to load.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findRepoRoot } from '@belfry/db';

// Everything that would reach scalar.com is off: fonts, telemetry, the AI agent (on by default
// on localhost), the SDK-generator promotion and MCP.
const SCALAR_CONFIG = {
  url: '/api/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  defaultOpenAllTags: true,
  metaData: { title: 'Belfry API reference' },
};

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // the renderer injects its stylesheet and sets inline styles at run time
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Belfry API reference</title>
</head>
<body>
<noscript>The interactive reference needs JavaScript; the document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
<div id="belfry-api-reference"></div>
<script src="/api/v1/docs/scalar.js"></script>
<script src="/api/v1/docs/init.js"></script>
</body>
</html>
`;

// Not #api-reference: the standalone build mounts an instance of its own on that id.
const INIT = `Scalar.createApiReference('#belfry-api-reference', ${JSON.stringify(SCALAR_CONFIG)});\n`;

export function apiReferencePage(): Response {
  return new Response(PAGE, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
    },
  });
}

let scalar: Promise<Buffer> | undefined;

/** Scalar's single-file browser build, read once; npm may have hoisted it or kept it beside the web app. */
async function scalarBundle(): Promise<Buffer> {
  const root = findRepoRoot();
  const relative = 'node_modules/@scalar/api-reference/dist/browser/standalone.js';
  const candidates = [join(/* turbopackIgnore: true */ root, relative), join(root, 'apps/web', relative)];
  for (const file of candidates) {
    try {
      return await readFile(/* turbopackIgnore: true */ file);
    } catch {
      // try the next place
    }
  }
  throw new Error(`@scalar/api-reference is not installed (looked in ${candidates.join(', ')}): run npm install`);
}

export async function apiReferenceAsset(name: string): Promise<Response> {
  const js = { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff' };
  if (name === 'init.js') return new Response(INIT, { headers: { ...js, 'cache-control': 'no-cache' } });
  if (name !== 'scalar.js')
    return new Response('Not found\n', { status: 404, headers: { 'content-type': 'text/plain' } });
  scalar ??= scalarBundle();
  try {
    const body = await scalar;
    return new Response(new Uint8Array(body), { headers: { ...js, 'cache-control': 'public, max-age=3600' } });
  } catch (err) {
    scalar = undefined;
    return new Response(`${(err as Error).message}\n`, { status: 500, headers: { 'content-type': 'text/plain' } });
  }
}
