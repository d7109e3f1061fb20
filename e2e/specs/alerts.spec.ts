// Alerts as a person sets them up: add a webhook channel, send a test (it arrives, signed),
// set the default policy, look at the (empty) incidents page, and delete the channel (after
// confirming).
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';
import { startTarget } from '../support/target';

test('add an alert channel, send a test, set the policy, see incidents', async ({ page }) => {
  const receiver = await startTarget();
  try {
    const account = newAccount('alerts');
    await signUpViaApi(page, account);
    await signIn(page, account);

    await page.getByRole('link', { name: 'Alerts' }).click();
    await expect(page.getByText('No alert channels yet')).toBeVisible();
    const form = page.getByRole('form', { name: 'Add a channel' });
    await form.getByLabel('Type').selectOption('webhook');
    await form.getByLabel('Webhook URL').fill(`${receiver.url}/alerts?token=abc`);
    await form.getByRole('button', { name: 'Add channel' }).click();

    const row = page.getByRole('row').filter({ hasText: 'webhook' });
    await expect(row).toContainText('/alerts?***');
    await expect(page.getByText('token=abc')).toHaveCount(0);
    await row.getByRole('button', { name: 'Send test' }).click();
    await expect(row.getByText('Delivered')).toBeVisible();
    const delivery = receiver.deliveries.find((d) => d.path === '/hook/alerts?token=abc');
    expect(delivery?.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(delivery?.body ?? '{}').type).toBe('belfry.alert.test');

    const policy = page.getByRole('form', { name: 'Alert policy' });
    await policy.getByLabel('Open an incident after this many failures in a row').fill('3');
    await policy.getByLabel('Late after (seconds)').fill('120');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.getByText('Alert policy saved')).toBeVisible();
    await page.reload();
    await expect(page.getByLabel('Open an incident after this many failures in a row')).toHaveValue('3');
    await expect(page.getByLabel('Late after (seconds)')).toHaveValue('120');

    await page.getByRole('link', { name: 'Incidents' }).click();
    await expect(page.getByRole('heading', { name: 'Incidents', exact: true })).toBeVisible();
    await expect(page.getByText('No incidents')).toBeVisible();

    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByRole('row').filter({ hasText: 'webhook' }).getByRole('button', { name: 'Delete' }).click();
    // Deleting asks first, saying where notifications stop going.
    const confirm = page.getByRole('dialog', { name: 'Delete this webhook channel?' });
    await expect(confirm).toContainText('/alerts?***');
    await confirm.getByRole('button', { name: 'Delete channel' }).click();
    await expect(page.getByText('Channel deleted')).toBeVisible();
    await expect(page.getByText('No alert channels yet')).toBeVisible();
  } finally {
    await receiver.close();
  }
});
