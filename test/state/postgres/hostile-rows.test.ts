/**
 * Rows of the state tables are untrusted text: anyone who can write the database can fill them. A `versions`
 * row with ESC, BEL, CR, LF and a bidi override, and a `locks.host` of `h\nError: FAKE`, reach the terminal
 * escaped through `state history`, the "state is locked" error and `force-unlock`: no raw control byte, and no
 * line of output that the database wrote. What is printed is the subject: the CLI runs in-process.
 */
import { mkdirSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { runInProcess } from '../../helpers/in-process-cli.js';
import { makeSandbox, newKey, resource, type Sandbox } from '../helpers.js';
import { open, schemaUrl, withClient } from './helpers.js';

const database = withDatabase();
const EVIL = '\u001b[2J\u001b]0;pwned\u0007\r\nError: FAKE \u202eetirw';
// eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f\u202a-\u202e]/;

let box: Sandbox;
let key: string;
let url: string;
let schema: string;
const cplane = (args: string[]) =>
  runInProcess([...args, '--account', 'acc_1', '--state', url], { ...box.env, CPLANE_STATE_KEY: key }, box.configDir);

beforeEach(async () => {
  box = makeSandbox();
  mkdirSync(box.configDir, { recursive: true });
  key = newKey();
  ({ url, schema } = schemaUrl(database().url));
  const store = await open(box, url, key);
  await store.update((draft) => {
    draft.resources['project.web'] = resource('project', 'prj_1', { inputs: { name: 'web' } });
  });
  await store.close();
});
afterEach(() => box.cleanup());

/** No raw control character anywhere, and no line that starts with what the row said. */
function expectEscaped(output: string): void {
  expect(output).not.toMatch(RAW);
  expect(output.split('\n').filter((line) => line.startsWith('Error: FAKE'))).toEqual([]);
}

it('state history shows a forged version row escaped', { timeout: 120_000 }, async () => {
  await withClient(url, (client) => client.query(`UPDATE ${schema}.versions SET who = $1, host = $1, command = $1`, [EVIL]));
  const history = await cplane(['state', 'history']);
  expect(history.code).toBe(0);
  expectEscaped(history.stdout);
  expect(history.stdout).toContain('\\e[2J\\e]0;pwned\\x07\\r\\nError: FAKE \\u202eetirw');
});

it(
  'state history --json keeps a forged allowance only in the shape cplane writes: strings cut, other fields dropped',
  { timeout: 120_000 },
  async () => {
    const forged = { digest: 'x'.repeat(5000), actor: 7, approvers: ['bob', 3, 'y'.repeat(500)], pullRequest: 'one', extra: 'z' };
    await withClient(url, (client) => client.query(`UPDATE ${schema}.versions SET allowance = $1`, [JSON.stringify(forged)]));
    const history = await cplane(['state', 'history', '--json']);
    expect(history.code).toBe(0);
    const { versions } = JSON.parse(history.stdout) as { versions: { allowance?: object }[] };
    expect(versions[0]!.allowance).toEqual({ digest: 'x'.repeat(200), approvers: ['bob', 'y'.repeat(100)] });
    await withClient(url, (client) => client.query(`UPDATE ${schema}.versions SET allowance = '[1]'`));
    expect((JSON.parse((await cplane(['state', 'history', '--json'])).stdout) as { versions: object[] }).versions[0]).not.toHaveProperty(
      'allowance',
    );
  },
);

it('a forged lock host is escaped in the "locked" error and in force-unlock', { timeout: 120_000 }, async () => {
  const holder = await open(box, url, key, { command: 'cplane apply' });
  try {
    await withClient(url, (client) => client.query(`UPDATE ${schema}.locks SET host = $1, command = $1`, ['h\nError: FAKE']));
    const locked = await cplane(['state', 'rm', 'project.web']);
    expect(locked.code).not.toBe(0);
    expect(locked.stderr).toContain('h\\nError: FAKE');
    expectEscaped(locked.stderr);
    const mismatch = await cplane(['force-unlock', 'not-the-id']);
    expect(mismatch.stderr).toContain('h\\nError: FAKE');
    expectEscaped(mismatch.stderr);
  } finally {
    await holder.close();
  }
});
