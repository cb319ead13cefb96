// Every operation of the table is called through the real CLI by exactly one api-cli-calls-N.test.ts file:
// the shares are cut from the table (api-cli-suite.ts), so a new operation cannot go untested silently.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { operationNames } from '../../src/api/index.js';
import { CALL_FILES, callShare } from './api-cli-suite.js';
import { calls } from './operation-calls.js';

it('the shares cover the operation table once, in order, none larger than ~20 subprocesses', () => {
  const shares = Array.from({ length: CALL_FILES }, (_, i) => callShare(i + 1));
  expect(shares.flat()).toEqual([...operationNames]);
  for (const share of shares) expect(share.length).toBeLessThanOrEqual(Math.ceil(operationNames.length / CALL_FILES));
  expect(() => callShare(CALL_FILES + 1)).toThrow(`callShare(${CALL_FILES + 1}): the parts are 1 to ${CALL_FILES}`);
});

it('each share has its test file, and each file runs its own share', () => {
  const folder = new URL('.', import.meta.url);
  const files = readdirSync(folder)
    .filter((name) => /^api-cli-calls-\d+\.test\.ts$/.test(name))
    .sort();
  expect(files).toEqual(Array.from({ length: CALL_FILES }, (_, i) => `api-cli-calls-${i + 1}.test.ts`));
  for (const [i, name] of files.entries())
    expect(readFileSync(new URL(name, folder), 'utf8')).toContain(`cliCallSuite(callShare(${i + 1}));`);
});

it('every operation has an arranged call', () => {
  expect(Object.keys(calls).sort()).toEqual([...operationNames].sort());
});
