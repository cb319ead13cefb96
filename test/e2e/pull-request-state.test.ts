// A pull request is untrusted input (issue 47, item 1, applied to the state): no text it can change decides where
// the state's database password goes. Its configuration points `state: { url }` at a server of its own (a plain TCP
// listener on 127.0.0.1 standing in for the attacker's PostgreSQL), hoping the runner's PGPASSWORD, a variable read
// with ${env.NAME}, or a committed password follows. The real CLI, with the secrets of a PR job set: `validate` and
// `plan` exit 1 naming `state.url` at file:line:col, and the listener receives no connection at all. The runner's
// binding (CPLANE_STATE / --state, else PGHOST) is what names the database; the configuration may only repeat it.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { world, type World } from './helpers.js';

const PGPASSWORD = 'runner-database-password-0123456789';
const DB_PASSWORD = 'another-runner-variable-9876543210';

let w: World;
let server: Server;
let connections = 0;
let port = 0;

beforeEach(async () => {
  w = await world();
  connections = 0;
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await w.close();
});

const withState = (url: string) => `version: 1\nprojects:\n  app: { description: app }\nstate:\n  url: "${url}"\n`;
const env = () => ({ PGPASSWORD, DB_PASSWORD, PGUSER: 'cplane' });

it('a state URL naming a server of its own: validate and plan refuse it, and no connection is made', async () => {
  const attacker = `postgres://cplane@127.0.0.1:${port}/infra`;
  const cases: [string, NodeJS.ProcessEnv, RegExp][] = [
    // Nothing bound: PGPASSWORD would go to the URL's host.
    [
      attacker,
      {},
      new RegExp(
        `infra/main\\.yaml:5:9: error: state\\.url names the database 127\\.0\\.0\\.1:${port}/infra, but no state is bound outside the repository`,
      ),
    ],
    // The runner binds another database: the configuration cannot move the state elsewhere.
    [
      attacker,
      { CPLANE_STATE: 'postgres://cplane:bound-pw@db.internal:5432/infra' },
      new RegExp(
        `state\\.url names the database 127\\.0\\.0\\.1:${port}/infra, but the state is bound to db\\.internal:5432/infra \\(CPLANE_STATE\\)`,
      ),
    ],
    // A host parameter wins over the authority in libpq: it is read as the database's host too.
    [
      `postgres://cplane@127.0.0.1:1/infra?host=127.0.0.1&port=${port}`,
      { PGHOST: '127.0.0.1', PGPORT: '1' },
      new RegExp(`state\\.url names the database 127\\.0\\.0\\.1:${port}/infra, but the state is bound to 127\\.0\\.0\\.1:1/ \\(PGHOST\\)`),
    ],
    // Any variable of the runner, read into the URL.
    [
      `postgres://cplane:\${env.DB_PASSWORD}@127.0.0.1:${port}/infra`,
      {},
      /infra\/main\.yaml:5:\d+: error: state\.url may not read the environment \(\$\{env\.DB_PASSWORD\}\): the repository would choose where that variable is sent/,
    ],
    // A committed password.
    [`postgres://cplane:committed-pw@127.0.0.1:${port}/infra`, {}, /infra\/main\.yaml:5:\d+: error: state\.url holds a password/],
  ];
  for (const [url, bound, message] of cases) {
    w.config(withState(url));
    const validated = await w.cli(['validate', 'infra'], { ...env(), ...bound });
    expect(validated.code, url).toBe(1);
    expect(validated.stdout + validated.stderr, url).toMatch(message);
    const planned = await w.cli(['plan', 'infra'], { ...env(), ...bound });
    expect(planned.code, url).toBe(1);
    expect(planned.stderr, url).toMatch(message);
    expect(planned.stderr).toContain('Bind the state outside the repository');
  }
  expect(connections).toBe(0);
  const printed = w.outputs.join('\n');
  for (const secret of [PGPASSWORD, DB_PASSWORD, 'committed-pw', 'bound-pw']) expect(printed).not.toContain(secret);
});

it('a state URL that repeats the bound database is accepted', async () => {
  w.config(withState(`postgres://cplane@127.0.0.1:${port}/infra?sslmode=disable`));
  for (const bound of [{ PGHOST: '127.0.0.1', PGPORT: String(port) }, { CPLANE_STATE: `postgres://cplane:pw@127.0.0.1:${port}/infra` }]) {
    const validated = await w.cli(['validate', 'infra'], { ...env(), ...bound });
    expect(validated.stdout + validated.stderr).not.toContain('state.url');
    expect(validated.code).toBe(0);
  }
  expect(connections).toBe(0);
});
