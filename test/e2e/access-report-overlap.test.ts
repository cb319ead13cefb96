// `cplane access report` reads the account while its configuration loads on a worker thread
// (src/session/configuration-off-thread.ts, openWorkspaceWhileReading in src/session/workspace.ts). The reads start in
// the account known without the configuration; these tests run the built CLI where that guess is wrong (the one state
// under .cplane/ is another account's than the configuration's `account:`), and where the configuration and the reads
// both fail: the configuration's errors are said, at file:line:col, exactly as `cplane plan` says them.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { account as staging, acme, world, type World } from './helpers.js';

let w: World;
let stagingState: string;
const config = (line = '') => `version: 1
${line}projects:
  vault:
    name: vault-overlap
    records:
      db-password:
        value: { generate: { length: 32 } }
`;

const recordIds = async (account: string) => {
  const client = createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: account });
  try {
    return (await client.listAll('listRecords', { query: { accountId: account } })).map((r) => r.record_id).sort();
  } finally {
    await client.close();
  }
};

beforeAll(async () => {
  w = await world({ account: acme });
  stagingState = join(w.temp, 'staging-state.json');
  w.config(config());
  // The folder's one state under .cplane/ is Acme's; Acme Staging's is kept outside it (--state).
  for (const env of [{}, { CPLANE_ACCOUNT: staging, CPLANE_STATE: stagingState }]) {
    const run = await w.cli(['apply', w.dir, '--auto-approve'], env);
    expect(run.code, run.stderr).toBe(0);
  }
});
afterAll(() => w.close());

describe('reads started in an account the configuration then does not name', () => {
  it("are discarded and sent again in the configuration's account: the report is of that account", async () => {
    w.config(config(`account: ${staging}\n`));
    const [acmeIds, stagingIds] = [await recordIds(acme), await recordIds(staging)];
    expect(stagingIds.length).toBeGreaterThan(0);
    // The account known beforehand (CPLANE_ACCOUNT) is the configuration's: the reads are kept.
    w.emulator.resetStats();
    const known = await w.cli(['access', 'report', w.dir, '--format', 'json'], { CPLANE_ACCOUNT: staging, CPLANE_STATE: stagingState });
    const once = w.emulator.stats().requests;
    // No CPLANE_ACCOUNT: the guess is the one state's account under .cplane/ (Acme), the configuration says Staging.
    w.emulator.resetStats();
    const guessed = await w.cli(['access', 'report', w.dir, '--format', 'json'], { CPLANE_ACCOUNT: '', CPLANE_STATE: stagingState });
    const twice = w.emulator.stats().requests;
    for (const run of [known, guessed]) {
      expect(run.code, run.stderr).toBe(exitCodes.ok);
      const report = JSON.parse(run.stdout) as { account: string; records: { recordId: string; address?: string }[] };
      expect(report.account).toBe(staging);
      expect(report.records.map((r) => r.recordId).sort()).toEqual(stagingIds);
      expect(report.records.every((r) => !acmeIds.includes(r.recordId))).toBe(true);
      expect(report.records.map((r) => r.address)).toContain('record.vault/db-password');
    }
    // Every list request was sent twice: once in Acme (discarded), once in Staging.
    expect(twice).toBe(2 * once);
  });
});

describe('errors while the account is read', () => {
  const broken = `version: 1
projects:
  vault:
    name: vault-overlap
    colour: blue
`;

  it('a configuration error is said as plan says it, with its file:line:col', async () => {
    w.config(broken);
    const report = await w.cli(['access', 'report', w.dir]);
    const plan = await w.cli(['plan', w.dir]);
    expect(report.code).toBe(plan.code);
    expect(report.code).not.toBe(exitCodes.ok);
    expect(report.stderr).toContain('main.yaml:5:5');
    expect(report.stderr).toBe(plan.stderr);
    expect(report.stdout).toBe('');
  });

  it("a configuration error and a failed read at once: the configuration's errors, not the read's", async () => {
    w.config(broken);
    const bogus = { CPLANE_TOKEN: 'sk-svc-pat-not-a-token-of-this-api' };
    const report = await w.cli(['access', 'report', w.dir], bogus);
    const plan = await w.cli(['plan', w.dir], bogus);
    expect(report.stderr).toContain('main.yaml:5:5');
    expect(report.stderr).toBe(plan.stderr);
    expect(report.stderr).not.toMatch(/401|token/i);
  });

  it('a failed read alone is said as it was before the overlap: after the configuration loaded, with what to do', async () => {
    w.config(config());
    const run = await w.cli(['access', 'report', w.dir], { CPLANE_TOKEN: 'sk-svc-pat-not-a-token-of-this-api' });
    expect(run.code).toBe(exitCodes.error);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Error: list\w+ failed: 401 unauthorized .*Check CPLANE_TOKEN/m);
    expect(run.stderr).not.toContain('sk-svc-pat-not-a-token-of-this-api');
  });
});
