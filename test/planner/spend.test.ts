// Spend in plans (docs/insight.md): limits normalised to 30 days, the tokens' sum beside the gateway's own limit,
// usage of the last 7 and 30 days read once per gateway from the emulator's usage, and the warnings.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { legacySpendWarnings, type Plan } from '../../src/plan-model/index.js';
import { renderPlanMarkdown, renderPlanText } from '../../src/render/index.js';
import { harness, type Harness } from './harness.js';

const HOUR = 3_600_000;

/** The plan's spend warnings as plan format 3 had them (`spend.warnings`), from its notices. */
const spendWarnings = (plan: Plan) =>
  legacySpendWarnings(plan.notices) as { code: string; address: string; message: string; at?: { file: string } }[];
const DAY = 24 * HOUR;

interface Limits {
  gateway?: string;
  window?: string;
  ci?: string;
  ciWindow?: string;
  ciModels?: string[];
  batch?: string;
  rpm?: number;
  extraGateway?: boolean;
}

/** Two gateways of one project; `main` with two tokens, `quiet` with none. */
function config(l: Limits = {}): string {
  const settings = [
    ...(l.gateway !== undefined ? [`spendLimitUsd: "${l.gateway}"`] : []),
    ...(l.window ? [`window: ${l.window}`] : []),
    ...(l.rpm ? [`requestsPerMinute: ${l.rpm}`] : []),
  ];
  return `
projects:
  spend: { description: Spend }
credentials:
  openai: { provider: openai, label: spend-openai, secret: { env: OPENAI_KEY } }
gateways:
  main:
    project: spend
    defaultModel: gpt-4o-mini
    credentials: [openai]
${settings.length > 0 ? `    settings: { ${settings.join(', ')} }\n` : ''}    tokens:
      ci:
        scopes: [run]
${l.ci ? `        spendLimit: "${l.ci}"\n` : ''}${l.ciWindow ? `        spendWindow: ${l.ciWindow}\n` : ''}${l.ciModels ? `        allowedModels: [${l.ciModels.join(', ')}]\n` : ''}      batch:
        scopes: [run]
${l.batch ? `        spendLimit: "${l.batch}"\n` : ''}  quiet:
    project: spend
    defaultModel: gpt-4o
    credentials: [openai]
${l.extraGateway ? '  extra:\n    project: spend\n    defaultModel: gpt-4o\n    credentials: [openai]\n    settings: { spendLimitUsd: "10.00", window: month }\n' : ''}`;
}

describe('spend in plans', () => {
  let h: Harness;
  const idOf = (address: string) => h.state.data.resources[address]!.id;

  beforeEach(async () => {
    h = await harness();
    h.config(config({ gateway: '40.00', window: 'day', ci: '10.00', batch: '5.00' }));
    await h.converge();
  });
  afterEach(async () => {
    await h.close();
  });

  it('normalises day, week and month limits to 30 days, exactly, with the total over the plan', async () => {
    // Gateway 40/day = 1200/30d -> 130/day = 3900/30d; its tokens 10/day + 5/day = 450/30d cap it before and after.
    h.config(config({ gateway: '130.00', window: 'day', ci: '10.00', ciWindow: 'weekly', batch: '5.00', extraGateway: true }));
    const plan = await h.plan();
    const spend = plan.spend!;
    const main = spend.gateways.find((g) => g.address === 'gateway.main')!;
    expect(main.before).toEqual({ limit: { usd: '40.00', window: 'day' }, per30d: '1200.00' });
    expect(main.after).toEqual({ limit: { usd: '130.00', window: 'day' }, per30d: '3900.00' });
    // ci becomes 10/week = 300/7 = 42.857.. -> 42.86; the sum is kept exact: 42.857.. + 150 = 192.857.. -> 192.86.
    const ci = main.tokens.find((t) => t.address === 'gateway_token.main/ci')!;
    expect(ci.before!.per30d).toBe('300.00');
    expect(ci.after).toEqual({ limit: { usd: '10.00', window: 'week' }, per30d: '42.86' });
    expect([main.tokensBefore, main.tokensAfter]).toEqual(['450.00', '192.86']);
    expect([main.maxBefore, main.maxAfter]).toEqual(['450.00', '192.86']);
    // A new gateway with 10/month counts once.
    const extra = spend.gateways.find((g) => g.address === 'gateway.extra')!;
    expect([extra.before, extra.after!.per30d, extra.maxBefore, extra.maxAfter]).toEqual([null, '10.00', '0.00', '10.00']);
    expect([spend.before, spend.after, spend.delta]).toEqual(['450.00', '202.86', '-247.14']);
    // The untouched gateway is not listed.
    expect(spend.gateways.map((g) => g.address)).toEqual(['gateway.extra', 'gateway.main']);
  });

  it('reads usage once per touched gateway, none for a new one, and shows 7- and 30-day figures', async () => {
    const main = idOf('gateway.main');
    h.emulator.addUsage([
      { gatewayId: main, tokenId: idOf('gateway_token.main/ci'), model: 'gpt-4o', requests: 30, costUsd: '12.30', ago: 2 * DAY },
      { gatewayId: main, tokenId: idOf('gateway_token.main/batch'), model: 'gpt-4o-mini', requests: 20, costUsd: '7.70', ago: 20 * DAY },
      { gatewayId: idOf('gateway.quiet'), model: 'gpt-4o', requests: 5, costUsd: '1.00', ago: HOUR },
    ]);
    h.config(config({ gateway: '130.00', window: 'day', ci: '10.00', batch: '5.00', extraGateway: true }));
    h.events.length = 0;
    const plan = await h.plan();
    const usageReads = h.events.filter(
      (e) => e.type === 'request' && (e.operation === 'getUsageMetrics' || e.operation === 'getUsageSpend'),
    );
    expect(usageReads).toHaveLength(1);
    expect(plan.spend!.usageReads).toBe(1);
    const gateway = plan.spend!.gateways.find((g) => g.address === 'gateway.main')!;
    // The emulator makes 5 requests of a fraction of a cent through a new gateway: they count too.
    expect(gateway.usage).toEqual({ spend7d: '12.30', requests7d: 35, spend30d: '20.00', requests30d: 55, spendInWindow: '0.00' });
  });

  it('reads no usage when nothing spend-related changes', async () => {
    h.config(
      config({ gateway: '40.00', window: 'day', ci: '10.00', batch: '5.00' }).replace('defaultModel: gpt-4o\n', 'defaultModel: gpt-4.1\n'),
    );
    h.events.length = 0;
    const plan = await h.plan();
    expect(plan.steps.filter((s) => s.action !== 'no-op').map((s) => s.address)).toEqual(['gateway.quiet']);
    expect(plan.spend).toBeUndefined();
    expect(h.events.filter((e) => e.type === 'request' && e.operation.startsWith('getUsage'))).toEqual([]);
  });

  it('warns of a new limit below what the current window has spent', async () => {
    h.emulator.addUsage([
      { gatewayId: idOf('gateway.main'), tokenId: idOf('gateway_token.main/ci'), model: 'gpt-4o', requests: 12, costUsd: '31.25' },
    ]);
    h.config(config({ gateway: '25.00', window: 'day', ci: '10.00', batch: '5.00' }));
    const plan = await h.plan();
    const warning = spendWarnings(plan).find((w) => w.code === 'limit_below_spend')!;
    expect(warning.address).toBe('gateway.main');
    expect(warning.message).toBe(
      'new limit $25.00/day is below the $31.25 already spent in the current day: requests would be refused at once',
    );
    expect(warning.at!.file).toBe('main.yaml');
    expect(renderPlanText(plan, { color: false })).toContain('! gateway.main: new limit $25.00/day is below the $31.25 already spent');
  });

  it('warns of a model removed from allowedModels that carried traffic in the last 7 days, with its count', async () => {
    const ci = idOf('gateway_token.main/ci');
    h.emulator.addUsage([
      { gatewayId: idOf('gateway.main'), tokenId: ci, model: 'gpt-4o', requests: 42, costUsd: '3.00', ago: 3 * DAY },
      { gatewayId: idOf('gateway.main'), tokenId: ci, model: 'o3-mini', requests: 9, costUsd: '1.00', ago: 10 * DAY },
      { gatewayId: idOf('gateway.main'), tokenId: ci, model: 'gpt-4o-mini', requests: 7, costUsd: '1.00', ago: DAY },
    ]);
    h.config(config({ gateway: '40.00', window: 'day', ci: '10.00', ciModels: ['gpt-4o-mini'], batch: '5.00' }));
    const plan = await h.plan();
    const removed = spendWarnings(plan).filter((w) => w.code === 'model_with_traffic_removed');
    // o3-mini's traffic is older than 7 days; gpt-4o-mini stays allowed.
    expect(removed.map((w) => [w.address, w.message])).toEqual([
      ['gateway_token.main/ci', 'model "gpt-4o" leaves allowedModels but carried 42 requests in the last 7 days'],
    ]);
  });

  it('warns of a token without a limit on a gateway with one, and of tokens over-subscribing the gateway', async () => {
    h.config(config({ gateway: '12.00', window: 'day', ci: '10.00' }));
    const plan = await h.plan();
    const codes = spendWarnings(plan).map((w) => [w.code, w.address]);
    expect(codes).toContainEqual(['token_without_limit', 'gateway_token.main/batch']);
    // A token that only reads logs sends no model request: it spends nothing, so it is not warned about.
    h.config(
      config({ gateway: '12.00', window: 'day', ci: '10.00' }).replace(
        '      batch:\n        scopes: [run]',
        '      batch:\n        scopes: [read_logs]',
      ),
    );
    const reading = spendWarnings(await h.plan()).map((w) => [w.code, w.address]);
    expect(reading).not.toContainEqual(['token_without_limit', 'gateway_token.main/batch']);
    h.config(config({ gateway: '12.00', window: 'day', ci: '10.00', batch: '5.00' }));
    const over = spendWarnings(await h.plan()).find((w) => w.code === 'tokens_oversubscribe_gateway')!;
    expect(over.message).toBe("its tokens' limits add up to $450.00/30d, above its own $360.00/30d: the gateway's limit is reached first");
  });

  it('a rate limit alone touches spend: the gateway is shown, its limit unchanged', async () => {
    h.config(config({ gateway: '40.00', window: 'day', ci: '10.00', batch: '5.00', rpm: 100 }));
    const plan = await h.plan();
    expect(plan.spend!.gateways.map((g) => [g.address, g.maxBefore, g.maxAfter])).toEqual([['gateway.main', '450.00', '450.00']]);
    expect(plan.spend!.delta).toBe('0.00');
  });

  it('lets a mandatory policy block on the rise in authorised spend, and advisory ones read usage', async () => {
    h.emulator.addUsage([
      { gatewayId: idOf('gateway.main'), tokenId: idOf('gateway_token.main/ci'), model: 'gpt-4o', requests: 12, costUsd: '8.00', ago: DAY },
    ]);
    const policies = `
policies:
  spend-cap:
    level: mandatory
    rule: "plan.spend.delta <= 500.0"
    message: A change may add at most $500/30d of authorised spend.
  busy-tokens:
    level: advisory
    kinds: [gateway_token]
    rule: "usage == null || usage.requests7d < 10"
    message: This token carried traffic this week.
`;
    // Before: min(1200, 450) = 450; after: min(3900, 3000 + 3000) = 3900: +3450.
    h.config(config({ gateway: '130.00', window: 'day', ci: '100.00', batch: '100.00' }) + policies);
    const plan = await h.plan();
    expect(plan.spend!.delta).toBe('3450.00');
    const findings = plan.policies!.findings.map((f) => [f.policy, f.level, f.address]);
    expect(findings).toContainEqual(['spend-cap', 'mandatory', 'gateway.main']);
    expect(findings).toContainEqual(['busy-tokens', 'advisory', 'gateway_token.main/ci']);
    expect(findings).not.toContainEqual(['busy-tokens', 'advisory', 'gateway_token.main/batch']);
    // Within the cap, the same rule passes.
    h.config(config({ gateway: '50.00', window: 'day', ci: '10.00', batch: '5.00' }) + policies);
    expect((await h.plan()).policies!.findings.filter((f) => f.policy === 'spend-cap')).toEqual([]);
  });

  it('shows spend in text and Markdown', async () => {
    h.config(config({ gateway: '130.00', window: 'day', ci: '10.00', batch: '5.00' }));
    const plan = await h.plan();
    const text = renderPlanText(plan, { color: false });
    expect(text).toContain('Max authorised: $450/30d → $450/30d (+$0)');
    expect(text).toContain('gateway.main: own limit $40.00/day ($1,200/30d) → $130.00/day ($3,900/30d)');
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain('**Max authorised: $450/30d → $450/30d (+$0)**');
  });
});

describe('spend with a token that may not read usage', () => {
  let h: Harness;
  beforeEach(async () => {
    // Acme Production: the account of the Service Account ci-deployer.
    h = await harness({ account: fixtures.accounts[0]!.id });
    h.config(config({ gateway: '40.00', window: 'day', ci: '10.00', batch: '5.00' }));
    await h.converge();
  });
  afterEach(async () => {
    await h.close();
  });

  it('says "spend not read", sends no usage request, and keeps the limits and steps complete', async () => {
    h.config(config({ gateway: '130.00', window: 'day', ci: '10.00', batch: '5.00' }));
    const full = await h.plan();
    const events: string[] = [];
    const sa = createClient({
      baseUrl: h.emulator.url,
      token: fixtures.tokens.serviceAccount,
      accountId: fixtures.accounts[0]!.id,
      onEvent: (e) => e.type === 'request' && events.push(e.operation),
    });
    try {
      const plan: Plan = await h.plan({ client: sa });
      expect(plan.spend!.usageNotRead).toMatch(/^GET \/usage\/metrics is human-only/);
      expect(plan.spend!.usageReads).toBe(0);
      expect(events.filter((op) => op.startsWith('getUsage'))).toEqual([]);
      // Everything but the usage is as the admin's plan has it.
      expect(plan.steps.map((s) => [s.address, s.action])).toEqual(full.steps.map((s) => [s.address, s.action]));
      expect(plan.spend!.gateways.map((g) => [g.address, g.before, g.after, g.maxAfter, g.usage])).toEqual(
        full.spend!.gateways.map((g) => [g.address, g.before, g.after, g.maxAfter, undefined]),
      );
      expect(renderPlanText(plan, { color: false })).toContain('? spend not read: GET /usage/metrics is human-only');
    } finally {
      await sa.close();
    }
  });
});
