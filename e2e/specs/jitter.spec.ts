// Herd spreading in the dashboard: the job form's Jitter field (validated by the server, the
// error shown at the field), the job page's Jitter row and when the next run actually starts,
// and changing it in the edit form.
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';

test('a job with jitter shows it, and when its next run starts', async ({ page }) => {
  test.setTimeout(180_000);
  const account = newAccount('jitter');
  await signUpViaApi(page, account);
  await signIn(page, account);

  await page.getByRole('link', { name: 'Create a job' }).click();
  await expect(page.getByRole('heading', { name: 'New job' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e spread report');
  await page.getByLabel('URL', { exact: true }).fill('https://example.com/report');
  const jitter = page.getByLabel('Jitter', { exact: true });
  await expect(jitter).toHaveValue('0');
  // Out of range: the server's message appears at the field and nothing is created.
  await jitter.fill('4000');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByText('must be 0 to 3600')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'New job' })).toBeVisible();

  await jitter.fill('90');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByRole('heading', { name: /e2e spread report/ })).toBeVisible();
  await expect(page.getByText('up to 90s after each occurrence')).toBeVisible();
  await expect(page.getByText(/^starts .+ \(jitter\)$/)).toBeVisible();

  await page.getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByLabel('Jitter', { exact: true })).toHaveValue('90');
  await page.getByLabel('Jitter', { exact: true }).fill('0');
  await page.getByRole('button', { name: /Save/ }).click();
  await expect(page.getByRole('heading', { name: /e2e spread report/ })).toBeVisible();
  await expect(page.getByText('up to 90s after each occurrence')).toHaveCount(0);
  await expect(page.getByText(/\(jitter\)$/)).toHaveCount(0);
});
