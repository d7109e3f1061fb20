// Accounts for specs: each spec signs up its own user and workspace (through the dashboard's
// tRPC endpoint when sign-up is not what the spec tests) and signs in through the form.
import { expect, type Page } from '@playwright/test';

export interface Account {
  email: string;
  password: string;
  workspace: string;
}

export function newAccount(label: string): Account {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  return {
    email: `e2e-${label}-${id}@example.com`,
    password: 'correct horse battery',
    workspace: `E2E ${label} ${id}`,
  };
}

/** Creates the account via tRPC (account.signUp), as the sign-up form does. */
export async function signUpViaApi(page: Page, account: Account): Promise<void> {
  const res = await page.request.post('/api/trpc/account.signUp', {
    data: { email: account.email, password: account.password, workspaceName: account.workspace },
  });
  expect(res.status(), await res.text()).toBe(200);
}

export async function signIn(page: Page, account: Account): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();
}
