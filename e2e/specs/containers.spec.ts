// A container job as a person makes one: the target kind selector and the container editor
// (an image outside the operator's allow-list is refused under the Image field), Run now, the
// run page with the exit code and the output tail, and the cluster page's Docker column. The
// image is built locally from Debian's static busybox (nothing is pulled; network none).
import { expect, test } from '@playwright/test';
import { ensureTestImage, TEST_IMAGE } from '../../test/docker';
import { newAccount, signIn, signUpViaApi } from '../support/account';

test.beforeAll(async () => {
  await ensureTestImage();
});

test('create a container job, run it, read its exit code and output', async ({ page }) => {
  test.setTimeout(240_000);
  const account = newAccount('containers');
  await signUpViaApi(page, account);
  await signIn(page, account);

  await page.getByRole('link', { name: 'Create a job' }).click();
  await expect(page.getByRole('heading', { name: 'New job' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e container');
  // The kind selector swaps the HTTP fields for the container editor.
  await expect(page.getByRole('combobox', { name: 'Method' })).toBeVisible();
  await page.getByRole('radio', { name: /Container/ }).check();
  await expect(page.getByRole('combobox', { name: 'Method' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Add header' })).toHaveCount(0);
  await page.getByLabel('Image').fill('docker.io/library/alpine:3');
  // One argument per line: sh -c and a script that says whether the write-only variable arrived
  // (the value it compares with is written in two quoted halves, so the page never shows it whole).
  await page
    .getByLabel('Command')
    .fill(
      'sh\n-c\n[ "$API_TOKEN" = "e2e-s3""cret" ] && t=ok || t=wrong; echo "hello from $KIND, attempt $BELFRY_ATTEMPT, token $t"; exit 0',
    );
  await page.getByRole('button', { name: 'Add variable' }).click();
  await page.getByLabel('Variable 1 name').fill('KIND');
  await page.getByLabel('Variable 1 value').fill('e2e');
  await page.getByRole('button', { name: 'Add variable' }).click();
  await page.getByLabel('Variable 2 name').fill('API_TOKEN');
  await page.getByLabel('Variable 2 value').fill('e2e-s3cret');
  await page.getByLabel('Memory').fill('64');
  await page.getByLabel('Pull policy').selectOption('never');
  await page.getByRole('button', { name: 'Create job' }).click();
  // Not an allowed image here: the server's 422 lands under the field.
  await expect(page.getByText(/image 'docker\.io\/library\/alpine:3' is not allowed here/).first()).toBeVisible();

  await page.getByLabel('Image').fill(TEST_IMAGE);
  await page.getByRole('button', { name: 'Create job' }).click();
  // The job page: the image, the limits, and the env with the credential's value masked.
  await expect(page.getByRole('heading', { name: /e2e container/ })).toBeVisible();
  await expect(page.getByText(TEST_IMAGE).first()).toBeVisible();
  await expect(page.getByText('64 MiB, 1 CPU, network none')).toBeVisible();
  await expect(page.getByText('KIND: e2e')).toBeVisible();
  await expect(page.getByText('API_TOKEN: ***')).toBeVisible();
  await expect(page.getByText(/e2e-s3cret/)).toHaveCount(0);

  // Run now opens the run: the exit code and the output tail.
  await page.getByRole('button', { name: 'Run now' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Succeeded', { timeout: 60_000 });
  await expect(page.getByText('Exit code')).toBeVisible();
  await expect(page.getByText('exit 0')).toBeVisible();
  await expect(page.getByTestId('container-output')).toHaveText('hello from e2e, attempt 1, token ok');

  // The edit form keeps the kind and shows the stored value as ***; saving *** keeps it.
  await page.getByRole('link', { name: 'e2e container' }).click();
  await page.getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByRole('radio', { name: /Container/ })).toBeChecked();
  await expect(page.getByLabel('Image')).toHaveValue(TEST_IMAGE);
  await expect(page.getByLabel('Variable 2 value')).toHaveValue('***');
  await page.getByLabel('Memory').fill('48');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('48 MiB, 1 CPU, network none')).toBeVisible();
  await expect(page.getByText('API_TOKEN: ***')).toBeVisible();
  await page.getByRole('button', { name: 'Run now' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Succeeded', { timeout: 60_000 });
  await expect(page.getByTestId('container-output')).toHaveText('hello from e2e, attempt 1, token ok');

  await page.getByRole('link', { name: 'Cluster' }).click();
  await expect(
    page
      .getByRole('table', { name: 'Engine nodes' })
      .getByText(/Docker · \d+ slots/)
      .first(),
  ).toBeVisible();
  await expect(page.getByTestId('no-container-nodes')).toHaveCount(0);
});
