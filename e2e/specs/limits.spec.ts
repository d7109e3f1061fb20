// The Limits page shows what the workspace uses of its limits, with an every-second schedule
// counted as 60 runs a minute.
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';

test('the Limits page shows jobs, scheduled runs per minute and API keys against their limits', async ({ page }) => {
  const account = newAccount('limits');
  await signUpViaApi(page, account);
  await signIn(page, account);

  // Every second, but only on 29 February: counted at 60 a minute, and it does not fire today.
  const created = await page.request.post('/api/trpc/jobs.create', {
    data: {
      name: 'leap-day-every-second',
      schedule: { type: 'cron', expression: '* * * 29 2 *', timezone: 'UTC' },
      target: { type: 'http', url: 'http://127.0.0.1:9/never', method: 'POST' },
    },
  });
  expect(created.status(), await created.text()).toBe(200);

  await page.getByRole('link', { name: 'Limits' }).click();
  await expect(page.getByRole('heading', { name: 'Limits' })).toBeVisible();
  await expect(page.getByRole('meter', { name: 'Jobs' })).toHaveAttribute('aria-valuetext', '1 of 100,000');
  await expect(page.getByRole('meter', { name: 'Scheduled runs per minute' })).toHaveAttribute(
    'aria-valuetext',
    '60 of 60,000',
  );
  await expect(page.getByRole('meter', { name: 'API keys' })).toHaveAttribute('aria-valuetext', '0 of 100');
  await expect(page.getByTestId('max-concurrency')).toHaveText('50');
  await expect(page.getByText('of 100,000')).toBeVisible();
});
