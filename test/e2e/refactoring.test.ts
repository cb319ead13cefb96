// Refactoring without destroy, through the real CLI: a gateway renamed with a moved block (its tokens and OTel
// export move with it, no write is sent), an object no longer managed with a removed block, an object adopted by
// id with an import block, and the exact error of each misuse of the blocks.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operations, type OperationName } from '../../src/api/operations.js';
import { account, world, type World } from './helpers.js';

// Each test arranges its own world: a fresh emulator, the configuration applied in-process (the CLI's entry, no
// subprocess) where the test is about what follows; the step a test is about runs through the real CLI.
let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => w.close());

/** Write requests (any method but GET) the emulator received, by operation. */
function writeRequests(): number {
  const byOperation = w.emulator.stats().byOperation;
  return Object.entries(byOperation)
    .filter(([name]) => operations[name as OperationName].method !== 'GET')
    .reduce((sum, [, n]) => sum + n, 0);
}

const stateAddresses = () =>
  Object.keys((JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, unknown> }).resources).sort();

/** The configuration with the gateway under the local name `gateway`; `project.side` is there until it is removed. */
const config = (gateway: string, extra = '', side = true) => `version: 1
projects:
  shop:
    description: Shop services
${side ? '  side:\n    description: Side project\n' : ''}credentials:
  openai:
    provider: openai
    label: openai-refactoring
    secret: { env: OPENAI_API_KEY }
gateways:
  ${gateway}:
    project: shop
    name: Search gateway
    slug: search-gw
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    otelExport:
      endpoint: https://otel.example.com/v1
      headers:
        Authorization: { env: OTEL_AUTH }
    tokens:
      ci:
        scopes: [run]
      web:
        scopes: [run]
${extra}`;

const env = { OTEL_AUTH: 'Bearer e2e-otel-secret' };

/** Applies `yaml` in-process (arrangement, not the subject); returns nothing, fails the test when it fails. */
async function applied(yaml: string): Promise<void> {
  w.config(yaml);
  const run = await w.run(['apply', w.dir, '--auto-approve'], env);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
}

/** A token's value, revealed in-process. */
const revealed = async (address: string) => (await w.run(['output', address, w.dir, '--reveal'])).stdout.trim();

const renamedByMoved = () => config('search', 'moved:\n  - from: gateway.search-gw\n    to: gateway.search\n');

/** The gateway applied under its first name, then renamed with a moved block and applied: `gateway.search`. */
async function renamed(): Promise<void> {
  await applied(config('search-gw'));
  await applied(renamedByMoved());
}

describe('moved: a renamed gateway keeps its objects', () => {
  it('applies the gateway under its first name', async () => {
    w.config(config('search-gw'));
    const run = await w.cli(['apply', w.dir, '--auto-approve'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const tokenBefore = (await w.cli(['output', 'gateway_token.search-gw/ci', w.dir, '--reveal'])).stdout.trim();
    expect(tokenBefore.length).toBeGreaterThan(10);
  });

  it('plans the rename as moves: 0 to add, 0 to remove, each move shown', async () => {
    await applied(config('search-gw'));
    w.config(renamedByMoved());
    const run = await w.cli(['plan', w.dir], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('# gateway.search-gw has moved to gateway.search');
    expect(run.stdout).toContain('# gateway_token.search-gw/ci has moved to gateway_token.search/ci');
    expect(run.stdout).toContain('# gateway_token.search-gw/web has moved to gateway_token.search/web');
    expect(run.stdout).toContain('# otel_export.search-gw has moved to otel_export.search');
    expect(run.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 0 to remove, 4 to move.');

    const json = JSON.parse((await w.cli(['plan', w.dir, '--json'], env)).stdout) as {
      summary: Record<string, number>;
      steps: { action: string; writes: unknown[] }[];
    };
    expect(json.summary).toMatchObject({ add: 0, remove: 0, move: 4 });
    expect(json.steps.every((s) => s.action === 'move' && s.writes.length === 0)).toBe(true);
  });

  it('applies with no write request, and the token reveals under its new address', async () => {
    await applied(config('search-gw'));
    const tokenBefore = await revealed('gateway_token.search-gw/ci');
    w.config(renamedByMoved());
    const before = writeRequests();
    const run = await w.cli(['apply', w.dir, '--auto-approve'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(writeRequests()).toBe(before);
    expect(stateAddresses().filter((a) => a.includes('search'))).toEqual([
      'gateway.search',
      'gateway_token.search/ci',
      'gateway_token.search/web',
      'otel_export.search',
    ]);
    expect((await w.cli(['output', 'gateway_token.search/ci', w.dir, '--reveal'])).stdout.trim()).toBe(tokenBefore);
  });

  it('then plans no changes, with the moved block still there and once it is deleted', async () => {
    await renamed();
    expect((await w.cli(['plan', w.dir], env)).stdout).toContain('No changes.');
    w.config(config('search'));
    expect((await w.cli(['plan', w.dir], env)).stdout).toContain('No changes.');
  });
});

describe('cplane state mv moves what lives under the object too', () => {
  it('moves the gateway with its tokens and export, and the token still reveals; moving back plans no changes', async () => {
    await renamed();
    const token = await revealed('gateway_token.search/ci');
    const run = await w.cli(['state', 'mv', 'gateway.search', 'gateway.renamed', w.dir]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Moved gateway\.search to gateway\.renamed \(remote gateway [0-9a-f-]{36} unchanged\)\.\n/);
    expect(run.stdout).toContain('Moved gateway_token.search/ci to gateway_token.renamed/ci with it.\n');
    expect(run.stdout).toContain('Moved gateway_token.search/web to gateway_token.renamed/web with it.\n');
    expect(run.stdout).toContain('Moved otel_export.search to otel_export.renamed with it.\n');
    expect(stateAddresses().filter((a) => a.includes('renamed'))).toEqual([
      'gateway.renamed',
      'gateway_token.renamed/ci',
      'gateway_token.renamed/web',
      'otel_export.renamed',
    ]);
    expect((await w.cli(['output', 'gateway_token.renamed/ci', w.dir, '--reveal'])).stdout.trim()).toBe(token);
    expect((await w.cli(['state', 'mv', 'gateway.renamed', 'gateway.search', w.dir])).code).toBe(0);
    expect((await w.cli(['plan', w.dir], env)).stdout).toContain('No changes.');
  });
});

describe('removed: cplane stops managing an object without touching it', () => {
  it('forgets the project: still live, absent from state, no write sent', async () => {
    await renamed();
    const side = (await w.client.listAll('listProjects', {})).find((p) => p.name === 'side')!;
    w.config(config('search', 'removed:\n  - from: project.side\n', false));
    const plan = await w.cli(['plan', w.dir], env);
    expect(plan.stdout).toContain('# project.side will no longer be managed');
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 0 to remove, 1 to forget.');
    const before = writeRequests();
    const run = await w.cli(['apply', w.dir, '--auto-approve'], env);
    expect(run.code).toBe(0);
    expect(writeRequests()).toBe(before);
    expect(stateAddresses()).not.toContain('project.side');
    const live = (await w.client.listAll('listProjects', {})).find((p) => p.project_id === side.project_id);
    expect(live?.archived_at ?? null).toBeNull();
  });
});

describe('import: adopting an object by id', () => {
  it('imports the project made by hand, with no create', async () => {
    await applied(config('search', '', false));
    const made = await w.client.call('createProject', { body: { accountId: account, name: 'by-hand', description: 'Made by hand' } });
    const id = (made as { project_id: string }).project_id;
    w.config(
      config('search', `import:\n  - to: project.legacy\n    id: ${id}\n`, false).replace(
        'projects:\n',
        'projects:\n  legacy:\n    name: by-hand\n    description: Made by hand\n',
      ),
    );
    const plan = await w.cli(['plan', w.dir], env);
    expect(plan.stdout).toContain('# project.legacy will be imported (import block at infra/main.yaml:');
    expect(plan.stdout).toContain(`>   project "legacy" (id ${id})`);
    expect(plan.stdout).toContain('Plan: 1 to import, 0 to add, 0 to change, 0 to replace, 0 to remove.');
    const run = await w.cli(['apply', w.dir, '--auto-approve'], env);
    expect(run.code).toBe(0);
    expect((await w.cli(['state', 'show', 'project.legacy', w.dir])).stdout).toContain(`id:       ${id}`);
    // The block may stay: the same object at the same address is nothing more to do.
    expect((await w.cli(['plan', w.dir], env)).stdout).toContain('No changes.');
  });
});

// Diagnostics: run in-process (the messages and codes are the subject, not the process), against an applied state.
describe('errors of the blocks', () => {
  beforeEach(() => applied(config('search', '', false)));

  /** Plans the configuration with `extra` appended; returns the plan's error output and the codes `validate --json` reports. */
  const refused = async (extra: string, replace?: [string, string]) => {
    let yaml = config('search', extra, false);
    if (replace) yaml = yaml.replace(...replace);
    w.config(yaml);
    const run = await w.run(['plan', w.dir], env);
    expect(run.code).toBe(1);
    const validate = JSON.parse((await w.run(['validate', w.dir, '--json'], env)).stdout) as { diagnostics: { code: string }[] };
    return { stderr: run.stderr, codes: validate.diagnostics.map((d) => d.code) };
  };

  it('a moved whose from is still configured', async () => {
    const { stderr, codes } = await refused('moved:\n  - from: project.shop\n    to: project.store\n');
    expect(codes).toEqual(['moved_from_configured']);
    expect(stderr).toContain('infra/main.yaml:28:11: error: moved: project.shop is still in the configuration\n');
    expect(stderr).toContain('28 |   - from: project.shop\n');
  });

  it('a chain of moves that forms a cycle', async () => {
    const { stderr, codes } = await refused('moved:\n  - from: project.a\n    to: project.b\n  - from: project.b\n    to: project.a\n');
    expect(codes).toEqual(['moved_cycle']);
    expect(stderr).toContain('infra/main.yaml:28:11: error: moved: the moves form a cycle: project.a -> project.b -> project.a\n');
  });

  it('a move between kinds', async () => {
    const { stderr, codes } = await refused('moved:\n  - from: project.a\n    to: gateway.a\n');
    expect(codes).toEqual(['moved_kind_mismatch']);
    expect(stderr).toContain('infra/main.yaml:29:9: error: moved: project.a is a project and cannot move to gateway.a, a gateway\n');
  });

  it('a removed whose from is still configured', async () => {
    const { stderr, codes } = await refused('removed:\n  - from: project.shop\n');
    expect(codes).toEqual(['removed_still_configured']);
    expect(stderr).toContain('infra/main.yaml:28:11: error: removed: project.shop is still in the configuration\n');
  });

  it('an import into an address that is not configured', async () => {
    const { stderr, codes } = await refused('import:\n  - to: project.nope\n    id: 00000000-0000-0000-0000-000000000000\n');
    expect(codes).toEqual(['import_not_configured']);
    expect(stderr).toContain('infra/main.yaml:28:9: error: import: project.nope is not in the configuration\n');
  });

  it('an import into an address already in state', async () => {
    const other = (await w.client.call('createProject', {
      body: { accountId: account, name: 'by-hand', description: 'Made by hand' },
    })) as { project_id: string };
    const { stderr } = await refused(`import:\n  - to: project.shop\n    id: ${other.project_id}\n`);
    expect(stderr).toMatch(
      new RegExp(
        `infra/main\\.yaml:28:5: error: project\\.shop: import: project\\.shop is already in state \\(id [0-9a-f-]{36}\\), so it cannot import ${other.project_id}\\n`,
      ),
    );
  });

  it('an import of an id that does not exist', async () => {
    const { stderr } = await refused('import:\n  - to: project.ghost\n    id: 00000000-0000-0000-0000-000000000000\n', [
      'projects:\n',
      'projects:\n  ghost:\n    description: Ghost\n',
    ]);
    expect(stderr).toMatch(
      /infra\/main\.yaml:\d+:5: error: project\.ghost: import: no project with id 00000000-0000-0000-0000-000000000000 exists in the account\n/,
    );
  });
});
