import { defineConfig } from 'vitest/config';

// Two projects: pure unit tests (`*.test.ts`) and database-backed integration tests
// (`*.int.test.ts`). The integration project boots PostgreSQL once (embedded unless
// DATABASE_URL is set), migrates a template database, and gives every test file its
// own clone so files run in parallel.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{apps,packages}/*/{src,test}/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          // Property tests walk 100K inputs: seconds on a busy 2-core machine, not a hang.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'int',
          include: ['{apps,packages}/*/{src,test}/**/*.int.test.ts', 'scripts/**/*.int.test.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: ['./test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
