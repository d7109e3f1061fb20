// Signing up, landing in an empty workspace with the getting-started guide, signing out,
// and signing back in; signed-out visitors are sent to sign in.
import { expect, test } from '@playwright/test';
import { newAccount } from '../support/account';
import { BASE_URL } from '../playwright.config';

test('a new user signs up, sees how to create a first job, signs out and back in', async ({ page }) => {
  const account = newAccount('signup');

  await page.goto('/jobs');
  await expect(page).toHaveURL(/\/signin/);

  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Your name').fill('Ada Example');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByLabel('Workspace name').fill(account.workspace);
  await page.getByRole('button', { name: 'Create account' }).click();

  await expect(page.getByRole('heading', { name: 'Create your first job' })).toBeVisible();
  await expect(page.getByLabel('Workspace')).toHaveValue(/ten_/);
  await expect(page.getByLabel('Workspace').locator('option:checked')).toHaveText(account.workspace);
  // The examples use this server's real address.
  await expect(page.getByText(`curl -X POST ${BASE_URL}/api/v1/jobs`)).toBeVisible();
  await page.getByRole('tab', { name: 'CLI' }).click();
  await expect(page.getByText(`npx belfry login --url ${BASE_URL}`)).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.goto('/jobs');
  await expect(page).toHaveURL(/\/signin/);

  await page.getByLabel('Password').fill('not the password');
  await page.getByLabel('Email').fill(account.email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('That email and password do not match an account.')).toBeVisible();

  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Create your first job' })).toBeVisible();
});

test('sign-up shows server validation beside the field', async ({ page }) => {
  const account = newAccount('invalid');
  await page.goto('/signup');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill('short');
  await page.getByLabel('Workspace name').fill(account.workspace);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('must be at least 10 characters')).toBeVisible();
});
