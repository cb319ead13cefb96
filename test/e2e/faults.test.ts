// Under seeded faults (20 % of requests answered 429/500/503, 10 % of write answers lost after commit), apply converges without duplicates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveInventory, world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(async () => w.close());

const config = `version: 1
projects:
${['a', 'b', 'c', 'd'].map((n) => `  p-${n}:\n    name: p-${n}\n    description: project ${n}\n`).join('')}credentials:
  openai:
    provider: openai
    label: openai-faults
    secret: { env: OPENAI_API_KEY }
gateways:
  edge:
    project: p-a
    name: Edge
    slug: edge
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      t1: { scopes: [run] }
      t2: { scopes: [run] }
      t3: { scopes: [read_logs] }
`;

describe('apply under injected faults', () => {
  it('converges in a bounded number of runs with exactly the configured objects', async () => {
    const seeded = await liveInventory(w.client);
    w.config(config);
    w.emulator.setFaults('429=0.08,500=0.06,503=0.06,drop=0.1,seed=7');
    const codes: (number | null)[] = [];
    for (let run = 0; run < 6; run++) {
      const result = await w.cli(['apply', w.dir, '--auto-approve']);
      codes.push(result.code);
      if (result.code === 0) break;
    }
    expect(codes.at(-1)).toBe(0);
    // The faults did bite: more create requests reached the API than the 9 objects configured.
    const creates = w.emulator.stats().byOperation;
    expect(creates.createProject + creates.createCredential + creates.createGateway + creates.createGatewayToken).toBeGreaterThan(9);
    w.emulator.setFaults('');
    const live = await liveInventory(w.client);
    expect(live.projects).toEqual([...seeded.projects, 'p-a', 'p-b', 'p-c', 'p-d'].sort());
    expect(live.credentials).toEqual([...seeded.credentials, 'openai-faults'].sort());
    expect(live.gateways).toEqual([...seeded.gateways, 'edge'].sort());
    expect(live.tokens).toEqual([...seeded.tokens, 'edge/t1', 'edge/t2', 'edge/t3'].sort());
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stdout).toContain('No changes.');
    for (const t of ['t1', 't2', 't3']) {
      const revealed = await w.cli(['output', `gateway_token.edge/${t}`, w.dir, '--reveal']);
      expect(revealed.code).toBe(0);
      expect(revealed.stdout.trim().length).toBeGreaterThan(10);
    }
  });
});
