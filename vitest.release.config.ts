import { defineConfig } from 'vitest/config';
import { workflowParserWithoutSourceMaps } from './test/helpers/workflow-parser-plugin.js';

/**
 * `npm run test:release`: the checks of what a release ships, too slow for every `npm test` (packing and
 * installing take seconds to minutes). Each is a file in test/release/, which `npm test` leaves out; .ci/run
 * runs both. They test the built dist/: run after `npm test` or `npm run build`.
 */
export default defineConfig({
  plugins: [workflowParserWithoutSourceMaps],
  test: {
    include: ['test/release/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    // GitHub's workflow parser (the release workflow's harness) imports JSON without an import attribute: vitest transforms it.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    // In CI its own JSON report, beside npm test's: .ci/run's summary line counts both.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'coverage/release-report.json' }]] : ['default'],
  },
});
