// Hardening a person never sees but relies on: every page carries a CSP that forbids framing
// and foreign scripts (and the dashboard still works under it: the other specs run under the
// same headers), API answers carry the rest, and signing in never sends anyone to another
// site, whatever the callbackUrl says.
import { expect, test } from '@playwright/test';
import { newAccount, signUpViaApi } from '../support/account';

test('pages and API answers carry the security headers', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) errors.push(msg.text());
  });
  const response = await page.goto('/signin');
  const headers = response?.headers() ?? {};
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['content-security-policy']).toContain("default-src 'self'");
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['x-frame-options']).toBe('DENY');
  // Served over http here: no HSTS (it is sent when NEXTAUTH_URL is https).
  expect(headers['strict-transport-security']).toBeUndefined();
  // The form is interactive: React hydrated under the policy.
  await page.getByLabel('Email').fill('someone@example.com');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  expect(errors).toEqual([]);

  const api = await request.get('/api/v1/healthz');
  expect(api.headers()['x-content-type-options']).toBe('nosniff');
  expect(api.headers()['referrer-policy']).toBe('same-origin');
});

for (const callbackUrl of ['/%09/evil.example', '//evil.example', '/%5Cevil.example', 'https://evil.example']) {
  test(`signing in with callbackUrl=${callbackUrl} stays on this site`, async ({ page, context }) => {
    const outside: string[] = [];
    await context.route(
      (url) => url.hostname.includes('evil.example'),
      (route) => {
        outside.push(route.request().url());
        return route.abort();
      },
    );
    const account = newAccount('redirect');
    await signUpViaApi(page, account);
    await page.context().clearCookies();
    await page.goto(`/signin?callbackUrl=${callbackUrl}`);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();
    expect(new URL(page.url()).host).toBe(new URL(test.info().project.use.baseURL ?? page.url()).host);
    expect(outside).toEqual([]);
  });
}
