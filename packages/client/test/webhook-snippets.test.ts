// docs/webhooks.md shows verifiers in Python and Go. They are run here, as written in the
// document, against deliveries signed by Belfry's own signing code (packages/core): one
// secret, a two-secret rotation, and tampered or stale requests that must be refused.
// Python 3 comes with every machine Belfry is developed on; Go is Debian's golang-go
// (.ci/run installs it, as it installs chromium).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateSigningSecret, webhookSignatureHeader } from '@belfry/core';
import { childEnv } from '../../../test/env';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const doc = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'belfry-snippets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function block(language: string, containing: string): string {
  const blocks = [...doc.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '');
  const found = blocks.find((b) => b.includes(containing));
  if (!found) throw new Error(`docs/webhooks.md has no ${language} block containing ${containing}`);
  return found;
}

interface Case {
  name: string;
  body: string;
  headers: Record<string, string>;
  secrets: string[];
  now: number;
  valid: boolean;
}

function cases(): Case[] {
  const secret = generateSigningSecret();
  const previous = generateSigningSecret();
  const id = 'run_01JZ8X3K4Q5R6S7T8V9W0XYZAB';
  const now = Math.floor(Date.now() / 1000);
  const ts = now - 2;
  const body = JSON.stringify({ report: 'daily', city: 'Zürich' });
  const headers = (secrets: string[], b = body, t = ts) => ({
    'webhook-id': id,
    'webhook-timestamp': String(t),
    'webhook-signature': webhookSignatureHeader(secrets, id, t, b),
  });
  return [
    { name: 'signed with the secret', body, headers: headers([secret]), secrets: [secret], now, valid: true },
    { name: 'rotation, new secret', body, headers: headers([secret, previous]), secrets: [secret], now, valid: true },
    { name: 'rotation, old secret', body, headers: headers([secret, previous]), secrets: [previous], now, valid: true },
    { name: 'receiver holds both', body, headers: headers([secret]), secrets: [previous, secret], now, valid: true },
    { name: 'no body', body: '', headers: headers([secret], ''), secrets: [secret], now, valid: true },
    {
      name: 'changed body',
      body: body.replace('daily', 'weekly'),
      headers: headers([secret]),
      secrets: [secret],
      now,
      valid: false,
    },
    { name: 'another secret', body, headers: headers([secret]), secrets: [previous], now, valid: false },
    { name: 'stale', body, headers: headers([secret], body, now - 600), secrets: [secret], now, valid: false },
    {
      name: 'from the future',
      body,
      headers: headers([secret], body, now + 600),
      secrets: [secret],
      now,
      valid: false,
    },
    {
      name: 'no signature',
      body,
      headers: { 'webhook-id': id, 'webhook-timestamp': String(ts) },
      secrets: [secret],
      now,
      valid: false,
    },
  ];
}

const PYTHON_DRIVER = `
import json, sys
for case in json.load(sys.stdin):
    headers = {k.lower(): v for k, v in case["headers"].items()}
    try:
        payload = verify_webhook(case["body"].encode(), headers, case["secrets"], now=case["now"])
        print(json.dumps({"name": case["name"], "valid": True, "payload": payload}))
    except WebhookVerificationError:
        print(json.dumps({"name": case["name"], "valid": False}))
`;

const GO_DRIVER = `
package belfrywebhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

type snippetCase struct {
	Name    string            \`json:"name"\`
	Body    string            \`json:"body"\`
	Headers map[string]string \`json:"headers"\`
	Secrets []string          \`json:"secrets"\`
	Now     int64             \`json:"now"\`
}

func TestCases(t *testing.T) {
	raw, err := os.ReadFile(os.Getenv("CASES"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []snippetCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r, _ := http.NewRequest("POST", "http://receiver.test/hook", strings.NewReader(c.Body))
		for k, v := range c.Headers {
			r.Header.Set(k, v)
		}
		body, err := Verify(r, c.Secrets, time.Unix(c.Now, 0))
		if err != nil {
			fmt.Printf("{\\"name\\":%q,\\"valid\\":false}\\n", c.Name)
		} else {
			fmt.Printf("{\\"name\\":%q,\\"valid\\":true,\\"body\\":%q}\\n", c.Name, string(body))
		}
	}
}
`;

function outcomes(stdout: string): Record<string, boolean> {
  const lines = stdout.split('\n').filter((l) => l.startsWith('{'));
  return Object.fromEntries(
    lines.map((l) => JSON.parse(l) as { name: string; valid: boolean }).map((o) => [o.name, o.valid]),
  );
}

const expected = (all: Case[]) => Object.fromEntries(all.map((c) => [c.name, c.valid]));

describe('the webhook verifiers in docs/webhooks.md', () => {
  it('Python: accepts what Belfry signs and refuses the rest', async () => {
    const all = cases();
    const file = join(dir, 'verify.py');
    writeFileSync(file, `${block('python', 'def verify_webhook')}\n${PYTHON_DRIVER}`);
    const child = run('python3', [file], { timeout: 30_000 });
    child.child.stdin?.end(JSON.stringify(all));
    const { stdout } = await child;
    expect(outcomes(stdout)).toEqual(expected(all));
    const first = stdout
      .split('\n')
      .map((l) => (l ? JSON.parse(l) : null))
      .find((o) => o?.valid);
    expect(first.payload).toEqual({ report: 'daily', city: 'Zürich' });
  }, 60_000);

  it('Go: accepts what Belfry signs and refuses the rest', async () => {
    const all = cases();
    const pkg = join(dir, 'go', 'belfrywebhook');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(dir, 'go', 'go.mod'), 'module example.com/belfrywebhook\n\ngo 1.19\n');
    writeFileSync(join(pkg, 'verify.go'), block('go', 'package belfrywebhook'));
    writeFileSync(join(pkg, 'cases_test.go'), GO_DRIVER);
    writeFileSync(join(dir, 'cases.json'), JSON.stringify(all));
    const go = await run('go', ['version']).catch(() => null);
    expect(go, 'Go is needed to check the Go snippet: apt-get install golang-go').not.toBeNull();
    const { stdout } = await run('go', ['test', '-count=1', '-v', './belfrywebhook'], {
      cwd: join(dir, 'go'),
      timeout: 240_000,
      env: childEnv({
        CASES: join(dir, 'cases.json'),
        GOFLAGS: '-mod=mod',
        GOCACHE: join(tmpdir(), 'belfry-go-cache'),
        GOPATH: join(tmpdir(), 'belfry-go-path'),
      }),
    });
    expect(outcomes(stdout)).toEqual(expected(all));
  }, 300_000);
});
