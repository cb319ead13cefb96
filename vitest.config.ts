import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: integration tests spawn servers and CLI subprocesses.
    maxWorkers: 2,
    // In CI also write a JSON report, from which .ci/run prints a plain `N passed, N failed` line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'coverage/test-report.json' }]] : ['default'],
  },
});
