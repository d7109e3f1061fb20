// The main path: create a job in the form pointing at a local target, watch runs appear on
// the timeline, make the target fail until a run is dead, fix it, replay from the dead
// letter page (count first) and see the replay succeed.
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';
import { startTarget, type Target } from '../support/target';

let target: Target;

test.beforeAll(async () => {
  target = await startTarget();
});

test.afterAll(async () => {
  await target?.close();
});

test('runs appear, a failure lands in the dead letter, and a replay succeeds', async ({ page }) => {
  test.setTimeout(240_000);
  const account = newAccount('jobs');
  await signUpViaApi(page, account);
  await signIn(page, account);

  // Create: every second, one attempt per run so a failure goes dead at once.
  await page.getByRole('link', { name: 'Create a job' }).click();
  await expect(page.getByRole('heading', { name: 'New job' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e heartbeat');
  await page.getByRole('tab', { name: 'Interval' }).click();
  await page.getByRole('textbox', { name: 'Run every' }).fill('1');
  await page.getByLabel('Unit').selectOption('seconds');
  await expect(page.getByText('Every second, counted from when you save.')).toBeVisible();
  // The preview comes from the server (the scheduler's own maths).
  await expect(page.locator('ol li')).toHaveCount(5);
  await page.getByLabel('URL', { exact: true }).fill(target.url);
  await page.getByLabel('Body').fill('{"hello": "belfry"}');
  await page.getByLabel('Max attempts', { exact: true }).fill('1');
  await page.getByLabel('Initial delay', { exact: true }).fill('0');
  await page.getByRole('button', { name: 'Create job' }).click();

  // Job page: runs show up on the timeline and in the runs table.
  await expect(page.getByRole('heading', { name: /e2e heartbeat/ })).toBeVisible();
  const jobUrl = page.url();
  await expect(page.getByRole('img', { name: /Run history: [1-9]\d* runs/ })).toBeVisible();
  const runsTable = page.getByRole('table', { name: 'Runs' });
  await expect(runsTable.getByText('Succeeded').first()).toBeVisible();
  expect(target.deliveries.some((d) => d.body === '{"hello":"belfry"}' && d.headers['webhook-signature'])).toBe(true);

  // Break the target: the next run fails its only attempt and goes dead.
  target.answerWith(500);
  await expect(runsTable.getByText('Dead').first()).toBeVisible();
  // Stop the schedule so the dead-letter count stops growing, then fix the target.
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
  target.answerWith(200);

  // Dead letter: the dead runs are listed; "replay all matching" shows the count first.
  await page.getByRole('link', { name: 'Dead letter' }).click();
  const dead = page.getByRole('table', { name: 'Dead runs' });
  await expect(dead.getByRole('link', { name: 'e2e heartbeat' }).first()).toBeVisible();
  await expect(dead.getByText('HTTP 500').first()).toBeVisible();
  await page.getByRole('button', { name: 'Replay all matching …' }).click();
  const dialog = page.getByRole('dialog', { name: 'Replay all matching dead runs?' });
  await expect(dialog.getByText(/Dry run: \d+ runs? would be replayed/)).toBeVisible();
  const replayButton = dialog.getByRole('button', { name: /^Replay \d+ runs?$/ });
  const label = (await replayButton.textContent()) ?? '';
  const count = Number(/Replay (\d+)/.exec(label)?.[1]);
  expect(count).toBeGreaterThan(0);
  await replayButton.click();
  await expect(page.getByText(`Replayed ${count} run${count === 1 ? '' : 's'}`)).toBeVisible();
  await expect(page.getByText('The dead-letter queue is empty')).toBeVisible();

  // The replays ran against the fixed target and succeeded.
  await page.goto(jobUrl);
  await page.getByLabel('Filter runs by status').selectOption('succeeded');
  const replayRow = runsTable.getByRole('row').filter({ hasText: 'replay' }).first();
  await expect(replayRow).toBeVisible();
  await replayRow.getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Succeeded');
  await expect(page.getByText('Replay of')).toBeVisible();
  await expect(page.getByText('HTTP 200').first()).toBeVisible();
});
