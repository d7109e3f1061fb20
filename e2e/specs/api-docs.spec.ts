// The interactive API reference at /api/v1/docs works without internet access: every request
// to anything but this server is blocked, and the page still loads its renderer from the
// server itself and lists the API's operations, read from /api/v1/openapi.json.
import { expect, test } from '@playwright/test';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

test('the API reference renders every operation from this server alone', async ({ page, context }) => {
  const outside: string[] = [];
  await context.route(
    (url) => !LOCAL_HOSTS.has(url.hostname) && url.protocol !== 'data:' && url.protocol !== 'blob:',
    (route) => {
      outside.push(route.request().url());
      return route.abort('internetdisconnected');
    },
  );
  // Requests the page's Content-Security-Policy stops never reach the route above; they fail.
  const failed: string[] = [];
  page.on('requestfailed', (request) => failed.push(request.url()));
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const local: string[] = [];
  page.on('response', (response) => {
    if (response.status() < 400) local.push(new URL(response.url()).pathname);
  });

  const response = await page.goto('/api/v1/docs');
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle(/Belfry API/);

  await expect(page.getByRole('heading', { name: 'Belfry API', level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Create a job' }).first()).toBeVisible();
  // The sidebar lists every operation, tag by tag.
  const sidebar = page.getByRole('complementary');
  for (const summary of [
    'List jobs, newest first',
    'Pause a job',
    'Cancel a run that has not finished',
    'Replay dead runs',
    'Rotate the signing secret',
    'Whether the API can reach its database',
  ]) {
    await expect(sidebar.getByText(summary, { exact: true })).toBeVisible();
  }
  // The renderer and the document came from this server.
  expect(local).toEqual(
    expect.arrayContaining(['/api/v1/docs/scalar.js', '/api/v1/docs/init.js', '/api/v1/openapi.json']),
  );
  expect(failed).toEqual([]);
  expect(errors).toEqual([]);
  // Nothing was even attempted elsewhere (fonts, telemetry, CDNs).
  expect(outside).toEqual([]);
});

test('an unknown asset of the reference is a 404', async ({ request }) => {
  const res = await request.get('/api/v1/docs/nope.js');
  expect(res.status()).toBe(404);
});
