// An MCP session as an assistant has it: the SDK's own client over a real stdio pipe to `cplane mcp` (the
// compiled CLI as a subprocess), against an emulator on 127.0.0.1 and a configuration folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNames, operations } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/index.js';
import { account, liveInventory, smallConfig, world, type World } from '../e2e/helpers.js';
import { call, json, session, SESSION_BUDGET_MS, type Session } from './mcp-session.js';

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const helpers = ['service_status', 'list_secret_types', 'generate_secret'];

describe('cplane mcp --allow-apply with a human token', () => {
  let w: World;
  let s: Session;
  beforeAll(async () => {
    w = await world();
    w.config(smallConfig());
    s = await session(w, fixtures.tokens.admin, ['--allow-apply']);
  }, SESSION_BUDGET_MS);
  afterAll(async () => {
    await s?.close();
    await w?.close();
  });

  it('lists a tool per operation, cplane validate/plan/apply and the three helpers, with hints', async () => {
    const { tools } = await s.client.listTools();
    expect(tools).toHaveLength(operationNames.length + 3 + 3);
    expect(tools.map((t) => t.name).sort()).toEqual(
      [...operationNames.map(snake), 'cplane_validate', 'cplane_plan', 'cplane_apply', ...helpers].sort(),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_projects')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('read_record')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('create_project')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('delete_gateway')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('revoke_record_user')!.annotations).toMatchObject({ destructiveHint: true });
    // A rotation or an update replaces a secret or a setting for good: not additive.
    expect(byName.get('rotate_credential')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('update_credential')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('get_gateway')!.inputSchema).toMatchObject({
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string', format: 'uuid' } },
    });
    expect(byName.get('create_credential')!.inputSchema.properties!.body).toMatchObject({ required: ['providerId', 'label', 'secret'] });
    expect(s.stderr()).toContain(`cplane mcp: serving ${tools.length} tools over stdio (human token; cplane_apply on (--allow-apply);`);
  });

  it('a read tool returns live data', async () => {
    await w.client.call('createProject', { body: { accountId: account, name: 'made-outside', description: 'live' } });
    const result = await call(s, 'list_projects');
    expect(result.isError).toBeUndefined();
    expect((json(result) as { name: string }[]).map((p) => p.name)).toContain('made-outside');
  });

  it('checks a call against the table before sending, and returns the error envelope from the API', async () => {
    w.emulator.resetStats();
    const invalid = await call(s, 'create_project', { body: { accountId: account, name: '' } });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0]!.text).toBe(
      'createProject was not sent: body: missing required member "description"; body/name: must NOT have fewer than 1 characters',
    );
    expect(w.emulator.stats().requests).toBe(0);
    const missing = await call(s, 'get_project', { id: '99999999-9999-4999-8999-999999999999' });
    expect(missing.isError).toBe(true);
    expect(json(missing)).toMatchObject({
      status: 404,
      code: 'not_found',
      reason: 'project_not_found',
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it('never returns a provider secret given in a body; token plaintext only from token creation', async () => {
    const secret = 'sk-mcp-provider-secret-0042';
    const created = await call(s, 'create_credential', { body: { providerId: fixtures.providers[0]!.id, label: 'mcp-made', secret } });
    expect(created.isError).toBeUndefined();
    expect(JSON.stringify(created)).not.toContain(secret);
    expect(created.content[1]!.text).toMatch(/^Idempotency-Key: [0-9a-f-]{36}$/);
    const rejected = await call(s, 'rotate_credential', {
      id: (json(created) as { credential_id: string }).credential_id,
      body: { secret: 'shortie' },
    });
    expect(JSON.stringify(rejected)).not.toContain('shortie');

    const gateway = fixtures.gateways[1]!.id;
    const token = await call(s, 'create_gateway_token', { id: gateway, body: { name: 'mcp-token', scopes: ['run'] } });
    const plaintext = (json(token) as { plaintext: string }).plaintext;
    expect(plaintext.length).toBeGreaterThan(10);
    const listed = await call(s, 'list_gateway_tokens', { id: gateway, allPages: true });
    expect(JSON.stringify(listed)).not.toContain(plaintext);
  });

  it(
    'cplane_plan then cplane_apply creates what the configuration describes',
    async () => {
      const validated = await call(s, 'cplane_validate');
      expect(json(validated)).toMatchObject({ valid: true, resources: 4 });
      const planned = await call(s, 'cplane_plan');
      expect(planned.isError).toBeUndefined();
      const { planId, plan } = json(planned) as { planId: string; plan: { summary: Record<string, number> } };
      expect(planId).toMatch(/^plan-[0-9a-f]{12}$/);
      expect(plan.summary).toMatchObject({ add: 4, change: 0, remove: 0 });
      const before = await liveInventory(w.client);
      expect(before.gateways).not.toContain('shop-main');

      const applied = await call(s, 'cplane_apply', { planId });
      expect(applied.isError).toBeUndefined();
      expect((json(applied) as { applied: boolean }).applied).toBe(true);
      const after = await liveInventory(w.client);
      expect(after.projects).toContain('shop');
      expect(after.credentials).toContain('openai-shop');
      expect(after.gateways).toContain('shop-main');
      expect(after.tokens).toContain('shop-main/ci');
      expect(JSON.stringify(applied)).not.toContain(w.env.OPENAI_API_KEY);
    },
    SESSION_BUDGET_MS,
  );

  it(
    'refuses a stale plan id and changes nothing',
    async () => {
      w.config(smallConfig({ description: 'Shop services, v2' }));
      const planned = json(await call(s, 'cplane_plan')) as { planId: string };
      w.config(smallConfig({ description: 'Shop services, v3' }));
      w.emulator.resetStats();
      const refused = await call(s, 'cplane_apply', { planId: planned.planId });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain('changed files: main.yaml (changed)). Nothing was applied:');
      expect(w.emulator.stats().writes).toBe(0);
      const unknown = await call(s, 'cplane_apply', { planId: 'plan-000000000000' });
      expect(unknown.content[0]!.text).toBe('Unknown planId "plan-000000000000": call cplane_plan and pass the planId it returns.');
    },
    SESSION_BUDGET_MS,
  );

  it('has the local helpers: status, secret sources and a generated secret', async () => {
    expect(json(await call(s, 'service_status'))).toEqual({
      identity: 'human',
      account,
      baseUrl: w.emulator.url,
      reachable: true,
      authenticated: true,
    });
    const sources = json(await call(s, 'list_secret_types')) as { sources: { type: string }[] };
    expect(sources.sources.map((x) => x.type)).toEqual(['env', 'file', 'generate']);
    const generated = json(await call(s, 'generate_secret', { length: 40 })) as { secret: string; length: number };
    expect(generated.secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
    const tooShort = await call(s, 'generate_secret', { length: 8 });
    expect(tooShort).toMatchObject({ isError: true, content: [{ text: 'length must be a whole number from 16 to 4096' }] });
  });

  it('kept stdout for the protocol all along: every line was a protocol message', () => {
    expect(s.errors).toEqual([]);
    expect(s.stderr()).not.toContain(fixtures.tokens.admin);
  });
});

describe('cplane mcp with a Service Account token', () => {
  let w: World;
  let s: Session;
  beforeAll(async () => {
    w = await world();
    s = await session(w, fixtures.tokens.serviceAccount);
  }, SESSION_BUDGET_MS);
  afterAll(async () => {
    await s?.close();
    await w?.close();
  });

  it('registers exactly the 10 Service Account operations and the three helpers', async () => {
    const { tools } = await s.client.listTools();
    expect(tools).toHaveLength(13);
    const saOperations = operationNames.filter((name) => operations[name].identity === 'SA').map(snake);
    expect(saOperations).toHaveLength(10);
    expect(tools.map((t) => t.name).sort()).toEqual([...saOperations, ...helpers].sort());
    expect(tools.map((t) => t.name)).not.toContain('create_project');
    expect(s.stderr()).toContain('cplane mcp: serving 13 tools over stdio (Service Account token');
  });

  it('refuses a human-only tool without sending anything, and serves a Service Account read', async () => {
    w.emulator.resetStats();
    await expect(call(s, 'create_project', { body: { accountId: fixtures.accounts[0]!.id, name: 'x', description: '' } })).rejects.toThrow(
      /Unknown tool "create_project"/,
    );
    expect(w.emulator.stats().requests).toBe(0);
    const providers = await call(s, 'list_providers');
    expect((json(providers) as { name: string }[]).map((p) => p.name)).toContain('openai');
    expect(json(await call(s, 'service_status'))).toMatchObject({ identity: 'service_account', reachable: true, authenticated: true });
  });

  it('service_status with an inactive Service Account says it is not authenticated, and why', async () => {
    const inactive = await session(w, fixtures.tokens.inactiveServiceAccount);
    try {
      expect(json(await call(inactive, 'service_status'))).toMatchObject({
        identity: 'service_account',
        reachable: true,
        authenticated: false,
        error: { status: 403, reason: 'service_account_inactive' },
      });
    } finally {
      await inactive.close();
    }
  });
});
