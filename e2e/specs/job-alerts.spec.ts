// A job's alerting as a person meets it on the job's page: the job follows the tenant policy;
// its run goes dead, so an incident opens, the webhook channel is told, and the job page shows
// the open incident with a link to its notifications; the person gives the job settings of its
// own in the edit form and sees them on the page; the next successful run resolves the
// incident; back to the tenant policy.
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';
import { startTarget, type Target } from '../support/target';

let jobTarget: Target;
let alertReceiver: Target;

test.beforeAll(async () => {
  [jobTarget, alertReceiver] = await Promise.all([startTarget(), startTarget()]);
});
test.afterAll(async () => {
  await Promise.all([jobTarget?.close(), alertReceiver?.close()]);
});

test('a dead run opens an incident the job page shows; the job’s alert settings are shown and edited', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const account = newAccount('job-alerts');
  await signUpViaApi(page, account);
  await signIn(page, account);

  // A webhook channel; the tenant policy (defaults) sends to every channel.
  await page.getByRole('link', { name: 'Alerts' }).click();
  const add = page.getByRole('form', { name: 'Add a channel' });
  await add.getByLabel('Type').selectOption('webhook');
  await add.getByLabel('Webhook URL').fill(`${alertReceiver.url}/alerts`);
  await add.getByRole('button', { name: 'Add channel' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'webhook' })).toBeVisible();

  // A job that runs hourly, one attempt per run; its target fails.
  jobTarget.answerWith(500);
  await page.getByRole('link', { name: 'Jobs' }).click();
  await page.getByRole('link', { name: 'Create a job' }).click();
  await page.getByLabel('Name', { exact: true }).fill('e2e alerting job');
  await page.getByRole('tab', { name: 'Interval' }).click();
  await page.getByRole('textbox', { name: 'Run every' }).fill('1');
  await page.getByLabel('Unit').selectOption('hours');
  await page.getByLabel('URL', { exact: true }).fill(jobTarget.url);
  await page.getByLabel('Max attempts', { exact: true }).fill('1');
  await page.getByLabel('Initial delay', { exact: true }).fill('0');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByRole('heading', { name: /e2e alerting job/ })).toBeVisible();
  const jobUrl = page.url();

  // It follows the tenant policy, and the page says what that means.
  const settings = page.getByRole('region', { name: 'Alert settings' });
  await expect(settings).toContainText('This job follows the tenant policy');
  await expect(settings).toContainText('Open an incident(tenant policy)');
  await expect(settings).toContainText('Every channel of the workspace');

  // Run it now: the run goes dead, an incident opens, the channel is told.
  await page.getByRole('button', { name: 'Run now' }).click();
  await expect(page.getByText('Dead', { exact: true }).first()).toBeVisible();
  await page.goto(jobUrl);
  const incidents = page.getByRole('region', { name: 'Open incidents' });
  await expect(incidents).toContainText('A run went dead');
  await expect(incidents).toContainText('since');
  await expect
    .poll(() => alertReceiver.deliveries.filter((d) => d.path === '/hook/alerts').length, { timeout: 60_000 })
    .toBeGreaterThan(0);
  const opened = JSON.parse(alertReceiver.deliveries.find((d) => d.path === '/hook/alerts')?.body ?? '{}');
  expect(opened.notifications[0]).toMatchObject({ event: 'opened', incident: { kind: 'dead' } });
  const incidentId = opened.notifications[0].incident.id as string;

  // The link leads to the incident and its notifications, on this job's incidents.
  await incidents.getByRole('link', { name: 'Notifications and timeline' }).click();
  await expect(page.getByRole('heading', { name: 'Incidents', exact: true })).toBeVisible();
  await expect(page.getByText(/Showing the incidents of job/)).toBeVisible();
  const marked = page.locator(`li[id="${incidentId}"]`);
  await expect(marked).toHaveAttribute('aria-current', 'true');
  await expect(marked).toContainText('A run went dead: e2e alerting job');
  await expect(marked.getByRole('list', { name: 'Notifications' })).toContainText('sent');

  // Settings of its own, in the edit form: numbers are checked before sending. (The job's
  // own Edit link is still the only link named exactly that.)
  await page.goto(jobUrl);
  await expect(page.getByRole('link', { name: 'Edit', exact: true })).toHaveCount(1);
  await page.getByRole('link', { name: 'Change alert settings' }).click();
  await page.getByRole('radio', { name: /Settings of its own/ }).check();
  await page.getByLabel('Open an incident when a run goes dead').uncheck();
  const failures = page.getByLabel('Open an incident after this many failures in a row');
  await failures.fill('0.5');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('must be a whole number, or empty for off')).toBeVisible();
  await failures.fill('3');
  await page.getByRole('radio', { name: /Only these/ }).check();
  await page.getByLabel(/^webhook: /).check();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Job saved')).toBeVisible();

  await expect(settings).toContainText('This job has alert settings of its own');
  await expect(settings).toContainText('Ignored(this job)');
  await expect(settings).toContainText('Incident after 3(this job)');
  await expect(settings).toContainText('webhook: ');
  await expect(settings).toContainText('/hook/alerts');

  // The target is fixed; the next run succeeds and resolves the incident.
  jobTarget.answerWith(200);
  await page.getByRole('button', { name: 'Run now' }).click();
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible();
  await page.goto(jobUrl);
  await expect(page.getByRole('heading', { name: /e2e alerting job/ })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Open incidents' })).toHaveCount(0);

  // Back to the tenant policy.
  await page.getByRole('link', { name: 'Change alert settings' }).click();
  await expect(page.getByLabel('Open an incident after this many failures in a row')).toHaveValue('3');
  await page.getByRole('radio', { name: /Tenant policy/ }).check();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(settings).toContainText('This job follows the tenant policy');
});
