// Removing a member: the dialog says, before anything happens, that the API keys they created
// will be revoked with them, and afterwards those keys no longer work.
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';

test('removing a member revokes the API keys they created, and says so first', async ({ page, browser, request }) => {
  const owner = newAccount('owner');
  await signUpViaApi(page, owner);
  await signIn(page, owner);

  // The owner invites an admin (through the dashboard's API; inviting has its own UI).
  const invited = newAccount('admin');
  const invite = await page.request.post('/api/trpc/members.invite', { data: { email: invited.email, role: 'admin' } });
  expect(invite.status(), await invite.text()).toBe(200);
  const token = (await invite.json()).result.data.token as string;

  // The admin joins in a browser of their own and creates an API key.
  const theirs = await browser.newContext();
  const other = await theirs.newPage();
  const joined = await other.request.post('/api/trpc/account.signUpWithInvitation', {
    data: { token, password: invited.password },
  });
  expect(joined.status(), await joined.text()).toBe(200);
  await signIn(other, invited);
  await other.getByRole('link', { name: 'API keys' }).click();
  await other.getByRole('button', { name: 'Create key' }).first().click();
  const dialog = other.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Name').fill('deploy bot');
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const key = (await other.getByTestId('new-api-key').textContent()) ?? '';
  expect(key).toMatch(/^bfy_/);
  const auth = { headers: { authorization: `Bearer ${key}` } };
  expect((await request.get('/api/v1/jobs', auth)).status()).toBe(200);
  await theirs.close();

  // The owner removes them, told first what happens to the key.
  await page.getByRole('link', { name: 'Members' }).click();
  const row = page.getByRole('row').filter({ hasText: invited.email });
  await row.getByRole('button', { name: 'Remove' }).click();
  const confirm = page.getByRole('dialog', { name: `Remove ${invited.email}?` });
  await expect(confirm).toContainText('The 1 API key they created will be revoked too');
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText('Member removed; 1 API key revoked')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: invited.email })).toHaveCount(0);

  expect((await request.get('/api/v1/jobs', auth)).status()).toBe(401);
  await page.getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'deploy bot' }).getByText('Revoked')).toBeVisible();
});
