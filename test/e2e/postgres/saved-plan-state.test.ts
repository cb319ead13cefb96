// A saved plan whose state is in PostgreSQL: a configuration `state: { url }` naming the database PGHOST binds
// applies without CPLANE_STATE (the applying job gives PGPASSWORD again; the plan never holds it), and without the
// binding the apply is refused before any connection;
// a plan file whose state URL was edited to another host is refused before any connection is opened there, and a
// journal row inserted by hand is refused before it is resent.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../../src/planner/index.js';
import { withDatabase } from '../../helpers/postgres.js';
import { smallConfig, world, type World } from '../helpers.js';

const database = withDatabase();

let w: World;
let decoy: Server;
let decoyPort = 0;
let decoyConnections = 0;
beforeAll(async () => {
  w = await world();
  // Stands where an edited plan would send the apply: it only counts who connects.
  decoy = createServer((socket) => {
    decoyConnections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
  decoyPort = (decoy.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => decoy.close(resolve));
  await w?.close();
});

/** The test database's URL in `schema`, with its password replaced by `password` (text put in the configuration as is). */
function stateUrl(schema: string, password: string): string {
  const url = new URL(database().url);
  return `postgres://${url.username}:${password}@${url.host}${url.pathname}?schema=${schema}`;
}

describe('a saved plan with its state in PostgreSQL', () => {
  it(
    'made with `state: { url }` naming the PGHOST database applies without CPLANE_STATE; the plan file never holds the password',
    { timeout: 180_000 },
    async () => {
      const url = new URL(database().url);
      const env = { PGHOST: url.hostname, PGPORT: url.port || '5432', PGPASSWORD: decodeURIComponent(url.password) };
      w.config(`${smallConfig()}state:\n  url: postgres://${url.username}@${url.host}${url.pathname}?schema=by_reference\n`);
      const planFile = join(w.dir, '..', 'by-reference.json');
      const plan = await w.cli(['plan', w.dir, '--out', planFile], env);
      expect(plan.code, plan.stderr).toBe(0);
      expect(readFileSync(planFile, 'utf8')).not.toContain(env.PGPASSWORD);

      // The applying job binds no state: the plan's database is not where its PGPASSWORD may go.
      const unbound = await w.cli(['apply', planFile], { PGPASSWORD: env.PGPASSWORD });
      expect(unbound.code).toBe(1);
      expect(unbound.stderr).toContain('and this job binds no state there');

      const apply = await w.cli(['apply', planFile], env);
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      expect(apply.stdout).toMatch(/Apply complete: 4 done, 0 failed/);
      expect(apply.stdout + apply.stderr).not.toContain(env.PGPASSWORD);
    },
  );

  it(
    'whose state URL was edited to another host is refused before any connection, and the password is sent nowhere',
    { timeout: 180_000 },
    async () => {
      const password = new URL(database().url).password;
      w.config(smallConfig({ description: 'edited-plan case' }));
      const env = { CPLANE_STATE: stateUrl('edited', password) };
      const planFile = join(w.dir, '..', 'edited.json');
      expect((await w.run(['plan', w.dir, '--out', planFile], env)).code).toBe(0);
      const saved = JSON.parse(readFileSync(planFile, 'utf8')) as Plan;
      saved.origin!.state = { url: `postgres://postgres@127.0.0.1:${decoyPort}/cplane?schema=edited` };
      writeFileSync(planFile, JSON.stringify(saved));

      const apply = await w.cli(['apply', planFile], { PGPASSWORD: password });
      expect(apply.code).toBe(1);
      expect(apply.stderr).toContain('its MAC does not match. Nothing was applied, and no connection was opened.');
      expect(decoyConnections).toBe(0);
    },
  );
});

describe('a forged row in the cplane.journal table', () => {
  it(
    'resending deleteGateway against a gateway cplane does not manage is refused by plan and apply, naming it',
    { timeout: 180_000 },
    async () => {
      w.config(smallConfig({ description: 'forged-journal case' }));
      const url = stateUrl('forged', new URL(database().url).password);
      expect((await w.run(['apply', w.dir, '--auto-approve'], { CPLANE_STATE: url })).code).toBe(0);
      const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug !== 'shop-main' && g.status !== 'disabled')!;
      const entry = {
        id: randomUUID(),
        address: 'record.payments/stripe-key',
        stepId: 'x',
        operation: 'deleteGateway',
        pathParams: { id: gateway.gateway_id },
        idempotencyKey: randomUUID(),
        body: null,
        createdAt: new Date().toISOString(),
      };
      const admin = new pg.Client({ connectionString: database().url });
      await admin.connect();
      await admin.query('INSERT INTO forged.journal (state_id, id, data) SELECT id, $1, $2::jsonb FROM forged.states', [
        entry.id,
        JSON.stringify(entry),
      ]);
      await admin.end();

      for (const args of [
        ['plan', w.dir],
        ['apply', w.dir, '--auto-approve'],
      ]) {
        const run = await w.cli(args, { CPLANE_STATE: url });
        expect(run.code, args[0]).toBe(1);
        expect(run.stderr).toContain('pending write deleteGateway of record.payments/stripe-key');
        expect(run.stdout).not.toContain('resent');
      }
      const after = await w.client.send('getGateway', { path: { id: gateway.gateway_id } });
      expect((after.data as { status: string }).status).not.toBe('disabled');
    },
  );
});

describe('plan on a schema where cplane never wrote', () => {
  it('plans from an empty state and creates no schema or table (a command that only reads runs no DDL)', { timeout: 120_000 }, async () => {
    w.config(smallConfig({ description: 'read-only case' }));
    const plan = await w.cli(['plan', w.dir], { CPLANE_STATE: stateUrl('never_written', new URL(database().url).password) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^Plan: /m);
    const admin = new pg.Client({ connectionString: database().url });
    await admin.connect();
    const { rows } = await admin.query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = 'never_written'`);
    await admin.end();
    expect(rows).toEqual([]);
  });
});
