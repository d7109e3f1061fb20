// A RabbitMQ target through the dashboard, as a person would: pick "RabbitMQ" in the job
// form's kind selector, fill the broker URL (with its login), exchange and routing key, create
// the job, and see its runs delivered to the real RabbitMQ on this machine; the job page and
// the edit form never show the password, and the run page says what the broker confirmed.
import { randomBytes } from 'node:crypto';
import { type Channel, type ChannelModel, connect, type Message } from 'amqplib';
import { expect, test } from '@playwright/test';
import { newAccount, signIn, signUpViaApi } from '../support/account';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';
const exchange = `belfry-e2e-${randomBytes(5).toString('hex')}`;
const queue = `belfry-e2e-${randomBytes(5).toString('hex')}`;
let admin: ChannelModel;
let channel: Channel;

test.beforeAll(async () => {
  admin = await connect(BROKER);
  channel = await admin.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: false });
  await channel.assertQueue(queue, { durable: false, exclusive: true });
  await channel.bindQueue(queue, exchange, 'reports');
});

test.afterAll(async () => {
  await channel?.deleteExchange(exchange).catch(() => {});
  await admin?.close();
});

async function received(): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    const m = await channel.get(queue, { noAck: true });
    if (m === false) return out;
    out.push(m);
  }
}

test('a job with a RabbitMQ target publishes signed messages; the password is never shown', async ({ page }) => {
  test.setTimeout(180_000);
  const account = newAccount('brokers');
  await signUpViaApi(page, account);
  await signIn(page, account);

  await page.getByRole('link', { name: 'Create a job' }).click();
  await expect(page.getByRole('heading', { name: 'New job' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e rabbit');
  await page.getByRole('tab', { name: 'Interval' }).click();
  await page.getByRole('textbox', { name: 'Run every' }).fill('2');
  await page.getByLabel('Unit').selectOption('seconds');

  // The kind selector swaps the HTTP fields for the RabbitMQ ones.
  await expect(page.getByRole('combobox', { name: 'Method' })).toBeVisible();
  await page.getByRole('radio', { name: /RabbitMQ/ }).check();
  await expect(page.getByRole('combobox', { name: 'Method' })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Broker URL' }).fill(BROKER);
  await page.getByRole('textbox', { name: 'Exchange' }).fill(exchange);
  await page.getByRole('textbox', { name: 'Routing key' }).fill('reports');
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Header 1 name').fill('x-team');
  await page.getByLabel('Header 1 value').fill('billing');
  await page.getByLabel('Body').fill('{"report": "daily"}');
  await page.getByRole('button', { name: 'Create job' }).click();

  // The job page: the kind and the broker, its password masked.
  await expect(page.getByRole('heading', { name: /e2e rabbit/ })).toBeVisible();
  await expect(page.getByText('amqp://guest:***@127.0.0.1:5672')).toBeVisible();
  await expect(page.getByText(exchange)).toBeVisible();
  await expect(page.getByText(BROKER)).toHaveCount(0);
  const runsTable = page.getByRole('table', { name: 'Runs' });
  await expect(runsTable.getByText('Succeeded').first()).toBeVisible();
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();

  // What RabbitMQ received: signed messages, the run id as message id.
  const messages = await received();
  expect(messages.length).toBeGreaterThan(0);
  for (const m of messages) {
    expect(m.content.toString()).toBe('{"report":"daily"}');
    expect(m.properties.messageId).toMatch(/^run_/);
    expect(String(m.properties.headers?.['webhook-id'])).toBe(m.properties.messageId);
    expect(String(m.properties.headers?.['webhook-signature'])).toMatch(/^v1,/);
    expect(String(m.properties.headers?.['x-team'])).toBe('billing');
  }
  expect(new Set(messages.map((m) => m.properties.messageId)).size).toBe(messages.length);

  // The run page says what the broker confirmed.
  await runsTable.getByRole('row').filter({ hasText: 'Succeeded' }).first().getByRole('link').first().click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Succeeded');
  await expect(page.getByText('Broker confirmation')).toBeVisible();
  await expect(
    page.getByText(`confirmed by amqp://127.0.0.1:5672 (exchange "${exchange}", routing key "reports")`),
  ).toBeVisible();
  await expect(page.getByText('Message headers sent')).toBeVisible();

  // The edit form keeps the kind and shows the stored password as ***, never the password.
  await page.goBack();
  await page.getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByRole('radio', { name: /RabbitMQ/ })).toBeChecked();
  await expect(page.getByRole('textbox', { name: 'Broker URL' })).toHaveValue('amqp://guest:***@127.0.0.1:5672');
  await expect(page.getByText('The stored password is shown as ***')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Exchange' })).toHaveValue(exchange);

  // Saving with *** keeps the stored password: after resuming, runs are still delivered.
  await page.getByRole('textbox', { name: 'Routing key' }).fill('reports');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('heading', { name: /e2e rabbit/ })).toBeVisible();
  await expect(page.getByText('amqp://guest:***@127.0.0.1:5672')).toBeVisible();
  await received(); // what arrived before the edit
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect.poll(async () => (await received()).length, { timeout: 30_000 }).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Pause' }).click();
});
