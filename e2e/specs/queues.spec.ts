// Pull queues as a person uses them: create a worker's key with only the queues:consume scope,
// see a pull job's due run wait on the Queues page, watch it claimed by a named worker, and
// find that worker on the run's detail page once it completed.
import { expect, type Page, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';

async function createKey(page: Page, name: string, scopes: { uncheck?: string[]; check?: string[] }): Promise<string> {
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('button', { name: 'Create key' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Name').fill(name);
  for (const scope of scopes.uncheck ?? [])
    await dialog.getByRole('checkbox', { name: new RegExp(`^${scope} `) }).uncheck();
  for (const scope of scopes.check ?? [])
    await dialog.getByRole('checkbox', { name: new RegExp(`^${scope} `) }).check();
  await dialog.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByText(`Key “${name}” created.`)).toBeVisible();
  const shown = page.getByTestId('new-api-key');
  await expect(shown).toHaveText(/^bfy_/);
  const key = (await shown.textContent()) ?? '';
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toHaveCount(0);
  return key;
}

test('a pull queue: waiting, claimed by a worker, completed', async ({ page, request }) => {
  const account = newAccount('queues');
  await signUpViaApi(page, account);
  await signIn(page, account);

  const manager = await createKey(page, 'deploy scripts', {});
  const consumer = await createKey(page, 'report worker', {
    uncheck: ['jobs:read', 'jobs:write', 'runs:read', 'runs:write'],
    check: ['queues:consume'],
  });
  await expect(page.getByRole('row').filter({ hasText: 'report worker' })).toContainText('queues:consume');

  await page.getByRole('link', { name: 'Queues' }).click();
  await expect(page.getByRole('heading', { name: 'Queues', exact: true })).toBeVisible();
  await expect(page.getByText('No pull queues')).toBeVisible();

  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const created = await request.post('/api/v1/jobs', {
    headers: auth(manager),
    data: {
      name: 'nightly report',
      schedule: { type: 'cron', expression: '0 3 * * *' },
      target: { type: 'pull', queue: 'reports' },
      payload: { day: 'yesterday' },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const job = await created.json();
  const triggered = await request.post(`/api/v1/jobs/${job.id}/trigger`, { headers: auth(manager) });
  const run = await triggered.json();

  const row = page.getByRole('row').filter({ hasText: 'reports' });
  await expect(row.getByRole('cell').nth(1)).toHaveText('1'); // waiting
  await expect(row.getByRole('cell').nth(2)).toHaveText('1'); // due now
  await expect(row.getByRole('cell').nth(3)).toHaveText('0'); // claimed
  await expect(row.getByRole('cell').nth(4)).toHaveText('never');

  // The worker's key cannot manage jobs, only claim.
  expect((await request.get('/api/v1/jobs', { headers: auth(consumer) })).status()).toBe(403);
  const claim = await request.post('/api/v1/queues/reports/claim', {
    headers: auth(consumer),
    data: { max: 5, worker: 'nightly-box:42' },
  });
  const { data } = await claim.json();
  expect(data).toHaveLength(1);
  expect(data[0].payload).toEqual({ day: 'yesterday' });

  await expect(row.getByRole('cell').nth(1)).toHaveText('0');
  await expect(row.getByRole('cell').nth(3)).toHaveText('1');
  await expect(row.getByRole('list', { name: 'Workers of reports' })).toContainText('nightly-box:42');
  await expect(row.getByRole('cell').nth(4)).not.toHaveText('never');

  const done = await request.post(`/api/v1/runs/${run.id}/complete`, {
    headers: auth(consumer),
    data: { leaseToken: data[0].leaseToken, status: 'succeeded', output: 'report mailed' },
  });
  expect(done.status()).toBe(200);
  await expect(row.getByRole('cell').nth(3)).toHaveText('0');

  // The job says where its runs go; the run says which worker held the lease.
  await page.getByRole('link', { name: 'Jobs' }).click();
  await page.getByRole('link', { name: 'nightly report' }).click();
  await expect(page.getByText('Pull queue')).toBeVisible();
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByText('nightly-box:42').first()).toBeVisible();
  await expect(page.getByText('report mailed')).toBeVisible();
});

test('a pull-queue job through the form: no headers, the queue checked, runs wait for a worker', async ({ page }) => {
  const account = newAccount('pullform');
  await signUpViaApi(page, account);
  await signIn(page, account);

  await page.getByRole('link', { name: 'Create a job' }).click();
  await expect(page.getByRole('heading', { name: 'New job' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e pull');
  await page.getByRole('tab', { name: 'Interval' }).click();
  await page.getByRole('textbox', { name: 'Run every' }).fill('2');
  await page.getByLabel('Unit').selectOption('seconds');

  // The kind selector swaps the HTTP fields and the headers editor for the queue name.
  await expect(page.getByRole('button', { name: 'Add header' })).toBeVisible();
  await page.getByRole('radio', { name: /Pull queue/ }).check();
  await expect(page.getByRole('combobox', { name: 'Method' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Add header' })).toHaveCount(0);
  const queue = page.getByRole('textbox', { name: 'Queue' });
  await queue.fill('ui reports');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByText('must be 1..100 characters of letters, digits, ".", "_" or "-"')).toBeVisible();
  await expect(queue).toHaveAttribute('aria-invalid', 'true');
  await queue.fill('ui-reports');
  await page.getByRole('button', { name: 'Create job' }).click();

  // The job page names the kind and links the queue; its runs wait there for a worker.
  await expect(page.getByRole('heading', { name: /e2e pull/ })).toBeVisible();
  await expect(page.getByRole('definition').filter({ hasText: /^Pull queue$/ })).toBeVisible();
  await expect(page.getByRole('term').filter({ hasText: /^Queue$/ })).toBeVisible();
  await page.getByRole('link', { name: 'ui-reports' }).click();
  await expect(page.getByRole('heading', { name: 'Queues', exact: true })).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: 'ui-reports' });
  await expect(row.getByRole('cell').nth(1)).not.toHaveText('0'); // waiting
  await expect(row.getByRole('cell').nth(3)).toHaveText('0'); // claimed

  // The edit form keeps the kind and the queue.
  await page.getByRole('link', { name: 'Jobs' }).click();
  await page.getByRole('link', { name: 'e2e pull' }).click();
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
  await page.getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByRole('radio', { name: /Pull queue/ })).toBeChecked();
  await expect(page.getByRole('textbox', { name: 'Queue' })).toHaveValue('ui-reports');
});
