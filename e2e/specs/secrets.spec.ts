// Write-only header values, as a person meets them: a job made in the form with an
// Authorization header shows it as *** on its page, in the editor and in the run's request
// headers; saving the editor unchanged keeps the real value, which the target receives.
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

test('a credential header is masked everywhere and still delivered', async ({ page }) => {
  const account = newAccount('secrets');
  await signUpViaApi(page, account);
  await signIn(page, account);

  await page.getByRole('link', { name: 'Create a job' }).click();
  await page.getByLabel('Name', { exact: true }).fill('e2e secret header');
  await page.getByRole('tab', { name: 'Interval' }).click();
  await page.getByRole('textbox', { name: 'Run every' }).fill('1');
  await page.getByLabel('Unit').selectOption('hours');
  await page.getByLabel('URL', { exact: true }).fill(target.url);
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Header 1 name').fill('Authorization');
  await page.getByLabel('Header 1 value').fill('Bearer sk_live_e2e_secret');
  await page.getByRole('button', { name: 'Create job' }).click();

  // The job page shows the header masked, and never the value.
  await expect(page.getByRole('heading', { name: /e2e secret header/ })).toBeVisible();
  await expect(page.getByText('Authorization: ***')).toBeVisible();
  await expect(page.getByText(/sk_live_e2e_secret/)).toHaveCount(0);

  // The editor shows *** too; saving it unchanged keeps the stored value.
  await page.getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByLabel('Header 1 value')).toHaveValue('***');
  await expect(page.getByText(/are write-only/)).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e secret header (edited)');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('heading', { name: /e2e secret header \(edited\)/ })).toBeVisible();
  await expect(page.getByText('Authorization: ***')).toBeVisible();

  // Run now opens the run: the target received the real value; the stored request headers
  // (run history) show it masked.
  await page.getByRole('button', { name: 'Run now' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Succeeded');
  const delivered = target.deliveries.filter((d) => d.headers['webhook-signature']);
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered.every((d) => d.headers.authorization === 'Bearer sk_live_e2e_secret')).toBe(true);
  await expect(page.getByText(/authorization: \*\*\*/)).toBeVisible();
  await expect(page.getByText(/sk_live_e2e_secret/)).toHaveCount(0);
});
