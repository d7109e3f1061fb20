// End-to-end tests in real Chromium (Debian's /usr/bin/chromium) against the real product:
// `npm start` from the repository root on port 3100 with its own embedded PostgreSQL and
// data directory, and loopback webhook targets allowed so specs can run a target locally.
import { join, resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { e2eEnv } from './support/env';

const root = resolve(import.meta.dirname, '..');
// E2E_PORT / E2E_PG_PORT let two checkouts run their suites side by side.
const port = e2eEnv.E2E_PORT;
const pgPort = e2eEnv.E2E_PG_PORT;
export const BASE_URL = `http://localhost:${port}`;

export default defineConfig({
  testDir: './specs',
  outputDir: './results',
  timeout: 120_000,
  expect: { timeout: 30_000 },
  // The specs share one server and each signs up its own user; running them one at a time
  // keeps timing-sensitive ones (runs every second) from competing for the one engine node.
  workers: 1,
  fullyParallel: false,
  forbidOnly: e2eEnv.CI,
  reporter: [['list'], ['html', { outputFolder: 'playwright-report', open: 'never' }]],
  use: {
    baseURL: BASE_URL,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'npm start',
    cwd: root,
    url: `${BASE_URL}/api/v1/healthz`,
    // The first start builds the dashboard.
    timeout: 300_000,
    reuseExistingServer: !e2eEnv.CI,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGINT', timeout: 45_000 },
    env: {
      PORT: port,
      BELFRY_PG_PORT: pgPort,
      BELFRY_HOME: join(root, '.belfry-e2e'),
      BELFRY_ALLOW_PRIVATE_TARGETS: '1',
      // containers.spec.ts: the image it builds locally (nothing is pulled)
      BELFRY_CONTAINER_IMAGES: 'belfry-test/*',
      NEXTAUTH_URL: BASE_URL,
    },
  },
});
