// API keys (created once-shown, used, revoked) and the signing secret (revealed, rotated
// with the old one kept for 24 h, the rotation ended early).
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';

test('create an API key, use it, revoke it', async ({ page, request }) => {
  const account = newAccount('keys');
  await signUpViaApi(page, account);
  await signIn(page, account);

  await page.getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByText('No API keys yet')).toBeVisible();
  await page.getByRole('button', { name: 'Create key' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Name').fill('e2e key');
  await dialog.getByRole('button', { name: 'Create key' }).click();

  const shown = page.getByTestId('new-api-key');
  await expect(shown).toHaveText(/^bfy_[A-Za-z0-9_-]{43}$/);
  const key = (await shown.textContent()) ?? '';
  const row = page.getByRole('row').filter({ hasText: 'e2e key' });
  await expect(row.getByText('Active')).toBeVisible();

  const ok = await request.get('/api/v1/jobs', { headers: { authorization: `Bearer ${key}` } });
  expect(ok.status()).toBe(200);

  await row.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('dialog', { name: 'Revoke e2e key?' }).getByRole('button', { name: 'Revoke key' }).click();
  await expect(row.getByText('Revoked')).toBeVisible();

  const refused = await request.get('/api/v1/jobs', { headers: { authorization: `Bearer ${key}` } });
  expect(refused.status()).toBe(401);
});

test('reveal and rotate the signing secret', async ({ page }) => {
  const account = newAccount('secret');
  await signUpViaApi(page, account);
  await signIn(page, account);

  await page.getByRole('link', { name: 'Signing secret' }).click();
  const current = page.getByTestId('current-secret');
  await expect(current).toContainText('••••');
  await page.getByRole('button', { name: 'Reveal' }).click();
  await expect(current).toHaveText(/^whsec_/);
  const before = (await current.textContent()) ?? '';
  await expect(page.getByTestId('previous-secret')).toHaveCount(0);

  await page.getByRole('button', { name: 'Rotate …' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
  await expect(dialog.getByText(/For the next 24 hours the old secret signs them too/)).toBeVisible();
  await dialog.getByRole('button', { name: 'Rotate secret' }).click();

  await expect(page.getByTestId('previous-secret')).toHaveText(before);
  await expect(current).toHaveText(/^whsec_/);
  expect(await current.textContent()).not.toBe(before);
  await expect(page.getByText(/still signing until/)).toBeVisible();
  // The snippet shows how to verify with the standardwebhooks package.
  await expect(page.getByText("import { Webhook } from 'standardwebhooks';")).toBeVisible();

  // End the rotation early: the previous secret stops signing now.
  const rotatedTo = (await current.textContent()) ?? '';
  await page.getByRole('button', { name: 'End rotation now …' }).click();
  const revoke = page.getByRole('dialog', { name: 'End the rotation now?' });
  await expect(revoke.getByText(/stops signing deliveries within seconds/)).toBeVisible();
  await revoke.getByRole('button', { name: 'Revoke previous secret' }).click();
  await expect(page.getByText('Previous secret revoked: only the current secret signs')).toBeVisible();
  await expect(page.getByTestId('previous-secret')).toHaveCount(0);
  await expect(current).toHaveText(rotatedTo);
  await page.reload();
  await page.getByRole('button', { name: 'Reveal' }).click();
  await expect(page.getByTestId('current-secret')).toHaveText(rotatedTo);
  await expect(page.getByTestId('previous-secret')).toHaveCount(0);
});
