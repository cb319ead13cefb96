import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { workflowParserWithoutSourceMaps } from './test/helpers/workflow-parser-plugin.js';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Tests that need a real PostgreSQL server: their project starts one for the run (test/helpers/postgres-global-setup.ts). */
const postgresTests = ['test/**/postgres/**/*.test.ts'];
/** What a release ships (the packed tarball installed): `npm run test:release` (vitest.release.config.ts), not every `npm test`. */
const releaseTests = ['test/release/**'];
/** Tests that replace a module (vi.mock): they need a module graph of their own, so they run isolated. */
const isolatedTests = ['test/config/module-source-race.test.ts'];

/**
 * The PostgreSQL project's files first, then vitest's usual order (each project's files longest first). Vitest runs
 * one project's files after another's, and a worker that changes project starts afresh: with PostgreSQL last, both
 * workers stopped at the same moment to start again for a few short files, and the suite ended on one worker.
 * First, the change of project happens while the other worker is still busy.
 */
class PostgresFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((file) => file.project.name === 'postgres'), ...sorted.filter((file) => file.project.name !== 'postgres')];
  }
}

/**
 * The tests' temporary folder on the machine's RAM file system when it has one with room (/dev/shm, 2 GB free), unless
 * the caller chose a TMPDIR: the state's tests write thousands of small files, each with its fsync, and on a disk
 * those waits held a worker idle. A process killed with SIGKILL loses nothing from either (what a crash test kills is
 * the process, not the machine). Set before the workers start, so they and the servers they run inherit it; one
 * folder per run (readable by the `postgres` user the test server runs as), removed when the run ends.
 */
function ramTempDir(): string | undefined {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize < 2 * 1024 ** 3) return undefined;
    const dir = mkdtempSync('/dev/shm/cplane-tests-');
    chmodSync(dir, 0o755);
    return dir;
  } catch {
    return undefined;
  }
}
const ramTemp = process.env.TMPDIR ? undefined : ramTempDir();
if (ramTemp) {
  process.env.TMPDIR = ramTemp;
  process.on('exit', () => rmSync(ramTemp, { recursive: true, force: true }));
}

export default defineConfig({
  plugins: [workflowParserWithoutSourceMaps],
  test: {
    testTimeout: 60_000,
    // GitHub's workflow parser imports its JSON schema without `with { type: 'json' }`, which Node 20 refuses:
    // vitest transforms it (as the bundlers it is made for do) instead of handing it to Node.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    sequence: { sequencer: PostgresFirst },
    hookTimeout: 60_000,
    // Two cores: integration tests spawn servers and CLI subprocesses.
    maxWorkers: 2,
    // A worker runs its files one after the other in one module graph: src/ is imported once per worker, not
    // once per file (that import was a quarter of the suite's time). Tests keep no state in modules they share;
    // the few that replace a module run isolated (below).
    isolate: false,
    // In CI also write a JSON report, from which .ci/run prints a plain `N passed, N failed` line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'coverage/test-report.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...postgresTests, ...releaseTests, ...isolatedTests],
        },
      },
      { extends: true, test: { name: 'isolated', include: isolatedTests, isolate: true } },
      // The global setup runs only when a test of this project is queued, so other runs never start a server.
      { extends: true, test: { name: 'postgres', include: postgresTests, globalSetup: ['test/helpers/postgres-global-setup.ts'] } },
    ],
  },
});
