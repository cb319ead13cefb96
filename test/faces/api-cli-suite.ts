// `cplane api` through the CLI's own entry, run in-process (test/helpers/in-process-cli.ts: the process is not the
// subject here; api-cli.test.ts spawns the built face), one run per operation, against an emulator on 127.0.0.1:
// each call succeeds, prints data that matches the operation's result schema, and never prints a secret it sent.
// The operations of the table are split over CALL_FILES test files (api-cli-calls-N.test.ts, each running
// `cliCallSuite(callShare(N))`) so that no file holds more than ~20 runs; the shares are cut from
// the table itself, so an operation added to it is called by the last file without anyone editing a bound.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNames, operations, type OperationName, type OperationSpec } from '../../src/api/index.js';
import { fixtures, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isReadOnly } from '../../src/api/operation-docs.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { acme, arrange, calls, cliArgs, sentSecrets, type Ids } from './operation-calls.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** One CLI run on a busy two-core machine: generous, as the testing rules ask. */
const CLI_BUDGET_MS = 60_000;

/** How many api-cli-calls-N.test.ts files share the operations (api-cli.test.ts checks that each exists). */
export const CALL_FILES = 3;

/** The operations file `part` (1 to CALL_FILES) calls: consecutive runs of the table, as even as they divide. */
export function callShare(part: number): OperationName[] {
  if (!Number.isInteger(part) || part < 1 || part > CALL_FILES) throw new Error(`callShare(${part}): the parts are 1 to ${CALL_FILES}`);
  const size = Math.ceil(operationNames.length / CALL_FILES);
  return operationNames.slice((part - 1) * size, part * size);
}

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
        const run = await runInProcess(cliArgs(name, call), cliEnv(emulator.url, home, token), home);
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
        else
          expect(run.stderr).toMatch(
            /^Idempotency-Key: [0-9a-f-]{36} \(to retry this write safely, run it again with --idempotency-key [0-9a-f-]{36}\)\n$/,
          );
        for (const secret of [...Object.values(sentSecrets), token]) expect(run.stdout + run.stderr).not.toContain(secret);
      });
    }
  });
}
