// `cplane api` through the real CLI, one subprocess per operation, against an emulator on 127.0.0.1: each
// call succeeds, prints data that matches the operation's result schema, and never prints a secret it sent.
// The 61 operations are split over several test files so that no file holds more than ~20 subprocesses.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type OperationName, type OperationSpec } from '../../src/api/index.js';
import { fixtures, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isReadOnly } from '../../src/api/operation-docs.js';
import { runCli } from '../e2e/helpers.js';
import { acme, arrange, calls, cliArgs, sentSecrets, type Ids } from './operation-calls.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** One CLI subprocess on a busy two-core machine: generous, as the testing rules ask. */
const CLI_BUDGET_MS = 60_000;

export function cliEnv(baseUrl: string, home: string, token: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', CPLANE_BASE_URL: baseUrl, CPLANE_TOKEN: token, CPLANE_ACCOUNT: acme };
}

export function cliCallSuite(names: OperationName[]): void {
  let emulator: RunningEmulator;
  let ids: Ids;
  let home: string;

  beforeAll(async () => {
    emulator = await startEmulator();
    ids = await arrange(emulator.url);
    home = mkdtempSync(join(tmpdir(), 'cplane-api-'));
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(home, { recursive: true, force: true });
  });

  describe('cplane api <operation>, one success each', () => {
    for (const name of names) {
      it(`${name}: prints its data, matching the result schema`, { timeout: CLI_BUDGET_MS }, async () => {
        const call = calls[name](ids);
        const token = fixtures.tokens[call.as ?? 'admin'];
        const before = emulator.stats().byOperation[name];
        const run = await runCli(cliArgs(name, call), cliEnv(emulator.url, home, token), home);
        expect(run.stderr.replace(/^Idempotency-Key: .*\n/, '')).toBe('');
        expect(run.code).toBe(0);
        expect(emulator.stats().byOperation[name]).toBe(before + 1);

        const data: unknown = JSON.parse(run.stdout);
        const spec: OperationSpec = operations[name];
        if (spec.result) {
          const validate = ajv.compile(spec.result);
          expect(validate(data), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        } else {
          expect(data).toBeNull();
        }
        // Writes carry a key, generated and shown so that a retry can reuse it; reads (readRecord, a POST, included) show none.
        if (isReadOnly(name)) expect(run.stderr).toBe('');
        else expect(run.stderr).toMatch(/^Idempotency-Key: [0-9a-f-]{36} \(to retry this write safely, run it again with --idempotency-key [0-9a-f-]{36}\)\n$/);
        for (const secret of [...Object.values(sentSecrets), token]) expect(run.stdout + run.stderr).not.toContain(secret);
      });
    }
  });
}
