// Models that exist: defaultModel and allowedModels are checked against the models the gateway's credentials
// serve (GET /provider-credentials/{id}/models once per credential, GET /providers for one not created yet).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlanError } from '../../src/planner/index.js';
import { harness, problemsOf, type Harness } from './harness.js';

const config = (model: string, allowed: string[] = [], withAnthropic = false) => `
projects:
  models: { description: Models }
credentials:
  openai: { provider: openai, label: models-openai, secret: { env: OPENAI_KEY } }
${withAnthropic ? '  anthropic: { provider: anthropic, label: models-anthropic, secret: { env: OPENAI_KEY_2 } }\n' : ''}gateways:
  main:
    project: models
    defaultModel: ${model}
    credentials: [openai${withAnthropic ? ', anthropic' : ''}]
    tokens:
      ci:
        scopes: [run]
        allowedModels: [${allowed.join(', ')}]
`;

async function planError(h: Harness): Promise<PlanError> {
  const error = await h.plan().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PlanError)) throw new Error(`expected a PlanError, got ${String(error)}`);
  return error;
}

describe('models that exist', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('refuses a model no attached credential serves, at its line and column, with suggestions (credentials not created yet: GET /providers)', async () => {
    h.config(config('claude-9-ultra', ['gpt-4o-mni'], true));
    const error = await planError(h);
    expect(problemsOf(error)).toEqual([
      { code: 'unknown_model', address: 'gateway.main', at: 'main.yaml:12' },
      { code: 'unknown_model', address: 'gateway_token.main/ci', at: 'main.yaml:17' },
    ]);
    const [gateway, token] = error.diagnostics;
    expect(gateway!.range).toMatchObject({ file: 'main.yaml', line: 12, col: 19 });
    expect(gateway!.summary).toBe('gateway.main: defaultModel: no attached credential serves the model "claude-9-ultra"');
    expect(token!.summary).toBe(
      'gateway_token.main/ci: allowedModels: no attached credential serves the model "gpt-4o-mni"; did you mean "gpt-4o-mini", "gpt-4.1-mini" or "gpt-4o"?',
    );
    expect(token!.detail).toContain('The credentials openai, anthropic serve: ');
  });

  it('refuses a retired model with the current ones as suggestions', async () => {
    h.config(config('claude-3-5-sonnet', [], true));
    const [problem] = (await planError(h)).diagnostics;
    expect(problem!.summary).toContain('"claude-3-5-sonnet"; did you mean "claude-3-7-sonnet"');
  });

  it('reads each existing credential once, and nothing when no model name or credential changes', async () => {
    h.config(config('gpt-4o-mini', ['gpt-4o'], true));
    await h.converge();
    h.events.length = 0;
    await h.plan();
    expect(h.events.filter((e) => e.type === 'request' && e.operation === 'listCredentialModels')).toEqual([]);

    h.config(config('claude-sonnet-4', ['gpt-4o', 'claude-opus-4-1'], true));
    h.events.length = 0;
    const plan = await h.plan();
    expect(plan.steps.filter((s) => s.action !== 'no-op').map((s) => s.address)).toEqual(['gateway.main', 'gateway_token.main/ci']);
    const reads = h.events.filter((e) => e.type === 'request' && e.operation === 'listCredentialModels');
    expect(reads).toHaveLength(2);

    // A model only the removed credential served is refused once it is detached.
    h.config(config('claude-sonnet-4', ['gpt-4o']));
    expect(problemsOf(await planError(h))).toEqual([{ code: 'unknown_model', address: 'gateway.main', at: 'main.yaml:11' }]);
  });
});
