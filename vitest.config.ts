import { defineConfig } from 'vitest/config';

/** Tests that need a real PostgreSQL server: their project starts one for the run (test/helpers/postgres-global-setup.ts). */
const postgresTests = ['test/**/postgres/**/*.test.ts'];
/** What a release ships (the packed tarball installed): `npm run test:release` (vitest.release.config.ts), not every `npm test`. */
const releaseTests = ['test/release/**'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: integration tests spawn servers and CLI subprocesses.
    maxWorkers: 2,
    // In CI also write a JSON report, from which .ci/run prints a plain `N passed, N failed` line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'coverage/test-report.json' }]] : ['default'],
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: [...postgresTests, ...releaseTests] } },
      // The global setup runs only when a test of this project is queued, so other runs never start a server.
      { extends: true, test: { name: 'postgres', include: postgresTests, globalSetup: ['test/helpers/postgres-global-setup.ts'] } },
    ],
  },
});
