// --json: one JSON object per event (NDJSON) for machines, ending with the summary; never a secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(async () => w.close());

describe('cplane apply --json', () => {
  it('prints NDJSON: the plan, one object per event, then the summary', async () => {
    w.config(`version: 1
credentials:
  openai:
    provider: openai
    label: openai-json
    secret: { env: OPENAI_API_KEY }
`);
    const run = await w.cli(['apply', w.dir, '--auto-approve', '--json']);
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; address?: string; done?: unknown[] });
    expect(lines.map((l) => l.type)).toEqual(['plan', 'step-started', 'step-done', 'summary']);
    expect(lines[2]).toMatchObject({ type: 'step-done', address: 'credential.openai', action: 'create', kind: 'credential', sealed: [] });
    expect(lines[3]!.done).toHaveLength(1);
    expect(run.stdout).not.toContain('sk-e2e-openai-secret');
  });

  it('never prompts: without --auto-approve it fails with the approval message', async () => {
    const run = await w.cli(['apply', w.dir, '--json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: cplane apply needs approval: run it in a terminal, or pass --auto-approve.\n');
  });
});
