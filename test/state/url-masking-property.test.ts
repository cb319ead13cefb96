// A database password is never shown, whatever it holds and however the URL is written. Passwords are random
// base64 (as `openssl rand -base64` makes them: `/`, `+` and `=` included); the URL forms are the user-info part
// (raw and percent-encoded), `password=` and `sslpassword=` (raw and percent-encoded), IPv6 hosts, and URLs that do
// not parse. A seeded property test checks the mask, the redactor and parsePostgresUrl's errors on 200 cases; the
// CLI then runs a representative set of commands on one URL of each form, through --state, CPLANE_STATE and
// `state: { url }`, and nothing it writes (stdout, stderr, `::error` annotations, the step summary) shows any of it.
// The CLI runs in-process (test/helpers/in-process-cli.ts): the mask is in the messages, not in the process; one
// run of the built CLI as a subprocess stays, so what the whole process writes is checked too.
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { maskUrl, parsePostgresUrl } from '../../src/state/postgres/index.js';
import { Redactor } from '../../src/text/safe-text.js';
import { passwordsInUrl, urlWithoutPasswords } from '../../src/text/url-secrets.js';
import { runCli } from '../e2e/helpers.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const SEED = 19_05;

type Form = (user: string, password: string, host: string) => string;

/** Every way a password is written in a state URL. */
const forms: Record<string, Form> = {
  userinfo: (u, p, h) => `postgres://${u}:${p}@${h}:5432/infra?sslmode=verify-full`,
  'userinfo percent-encoded': (u, p, h) => `postgresql://${u}:${encodeURIComponent(p)}@${h}/infra`,
  'password=': (u, p, h) => `postgres://${h}/infra?user=${u}&password=${p}&sslmode=disable`,
  'password= percent-encoded': (u, p, h) => `postgres://${h}:5432/infra?user=${u}&password=${encodeURIComponent(p)}`,
  'sslpassword=': (u, p, h) => `postgres://${u}@${h}/infra?sslmode=verify-full&sslcert=/c.pem&sslkey=/k.pem&sslpassword=${p}`,
  'sslpassword= percent-encoded': (u, p, h) => `postgres://${u}@${h}/infra?sslpassword=${encodeURIComponent(p)}&sslmode=require`,
  'user-info and sslpassword=': (u, p, h) => `postgres://${u}:${p}@${h}/infra?sslpassword=${p}`,
  'unparseable host': (u, p) => `postgres://${u}:${p}@[bad/infra`,
  'unparseable port': (u, p, h) => `postgres://${u}:${p}@${h}:port/infra`,
};

/** Any 8 characters of the password in a row (so a password cut in two by a bad mask is caught too), raw or encoded. */
function leaks(text: string, password: string): string | undefined {
  for (const form of [password, encodeURIComponent(password)]) {
    for (let i = 0; i + 8 <= form.length; i++) if (text.includes(form.slice(i, i + 8))) return form.slice(i, i + 8);
  }
  return undefined;
}

const password = fc.uint8Array({ minLength: 9, maxLength: 33 }).map((bytes) => Buffer.from(bytes).toString('base64'));
const user = fc.constantFrom('cplane', 'u', 'app_user');
const host = fc.constantFrom('db.example.com', '127.0.0.1', '[::1]', '[2001:db8::5]', 'h');
const form = fc.constantFrom(...Object.keys(forms));

describe("one reading of a URL's passwords", () => {
  it('masks and records a password with a raw / and @ alike: no part of it survives either form', () => {
    const url = 'postgres://app:p@ss/word@db.example:5432/cplane';
    expect(maskUrl(url)).toBe('postgres://app:***@db.example:5432/cplane');
    expect(urlWithoutPasswords(url)).toBe('postgres://app@db.example:5432/cplane');
    expect(urlWithoutPasswords('postgres://h/infra?user=u&password=s3cr%2Ft&sslmode=disable')).toBe(
      'postgres://h/infra?user=u&password=&sslmode=disable',
    );
    expect(urlWithoutPasswords('postgres://u@h/infra')).toBe('postgres://u@h/infra');
  });
});

describe('in process: 200 random passwords in every form', () => {
  it('maskUrl, the redactor and parsePostgresUrl never show the password', () => {
    fc.assert(
      fc.property(password, user, host, form, (pw, u, h, name) => {
        const url = forms[name]!(u, pw, h);
        expect(leaks(maskUrl(url), pw), `${name}: ${maskUrl(url)}`).toBeUndefined();
        // The form a saved plan records (and compares a URL given later with): the same reading, passwords left out.
        expect(leaks(urlWithoutPasswords(url), pw), `${name}: ${urlWithoutPasswords(url)}`).toBeUndefined();
        const redactor = new Redactor();
        for (const secret of passwordsInUrl(url)) redactor.register(secret);
        expect(leaks(redactor.redact(`Cannot use ${url}: ${JSON.stringify({ url })}`), pw), name).toBeUndefined();
        let message: string;
        try {
          message = parsePostgresUrl(url).masked;
        } catch (error) {
          message = (error as Error).message;
        }
        expect(leaks(message, pw), `${name}: ${message}`).toBeUndefined();
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('keeps what is not secret: the user, the host, the database and the other parameters', () => {
    expect(maskUrl('postgres://cplane:ab/cd+e=@[::1]:5432/infra?sslmode=verify-full&sslpassword=x/y')).toBe(
      'postgres://cplane:***@[::1]:5432/infra?sslmode=verify-full&sslpassword=***',
    );
    expect(maskUrl('postgres://h/db?user=u&PASSWORD=a%2Fb&schema=team')).toBe('postgres://h/db?user=u&PASSWORD=***&schema=team');
    expect(maskUrl('postgres://cplane@h/db')).toBe('postgres://cplane@h/db');
  });
});

describe('the CLI: each form through every way of giving the state', () => {
  let temp: string;
  const emptyConfig = `version: 1\naccount: ${fixtures.accounts[1]!.id}\n`;

  beforeAll(() => {
    temp = mkdtempSync(join(tmpdir(), 'cplane-mask-'));
  });
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  // One seeded password per form; the hosts refuse at once (port 1), so no command waits.
  const cases = Object.entries(forms).map(([name, make], i) => {
    const [pw] = fc.sample(password, { seed: SEED + i, numRuns: 1 });
    return { name, pw: pw!, url: make('cplane', pw!, i % 2 === 0 ? '127.0.0.1:1' : '[::1]:1').replace(/:1:5432/, ':1') };
  });
  const commands = [['plan', '--github'], ['output'], ['state', 'history'], ['state', 'pull'], ['state', 'list']];

  it.each(cases)('$name', async ({ name, pw, url }) => {
    const runs = commands.map(async (command, i) => {
      const folder = mkdtempSync(join(temp, 'run-'));
      // The three ways of giving the state, in turn: --state, CPLANE_STATE, and the configuration's `state: { url }`.
      const how = i % 3;
      writeFileSync(
        join(folder, 'main.yaml'),
        how === 2 && command[0] === 'plan' ? `${emptyConfig}state:\n  url: "${url}"\n` : emptyConfig,
      );
      const summary = join(folder, 'summary.md');
      writeFileSync(summary, '');
      const env = {
        PATH: process.env.PATH,
        HOME: folder,
        NO_COLOR: '1',
        CPLANE_BASE_URL: 'http://127.0.0.1:1',
        CPLANE_TOKEN: fixtures.tokens.admin,
        CPLANE_ACCOUNT: fixtures.accounts[1]!.id,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_OUTPUT: join(folder, 'output'),
        ...(how === 1 ? { CPLANE_STATE: url } : {}),
      };
      const args = [...command, ...(how === 0 || (how === 2 && command[0] !== 'plan') ? ['--state', url] : [])];
      const spawned = name === cases[0]!.name && i === 0;
      const run = await (spawned ? runCli : runInProcess)(args, env, folder);
      const written = `${run.stdout}\n${run.stderr}\n${readFileSync(summary, 'utf8')}`;
      return { command: args.join(' ').replace(url, '<url>'), code: run.code, written };
    });
    for (const { command, code, written } of await Promise.all(runs)) {
      expect(code, `${name}: ${command}`).not.toBe(0);
      expect(written, `${name}: ${command}`).toMatch(/state|URL|PostgreSQL/i);
      expect(leaks(written, pw), `${name}: ${command} showed part of the password:\n${written}`).toBeUndefined();
    }
  });
});
