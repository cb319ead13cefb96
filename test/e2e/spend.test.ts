// Spend in every plan that touches it, as `cplane plan` prints it: text, --json (schema/plan.schema.json),
// --markdown and --github (the step summary); "spend not read" with a Service Account token; names from the
// usage API escaped where they are printed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import type { Plan } from '../../src/plan-model/index.js';
import { acme, coreAndOpenai, hostileProxy, world, type World } from './helpers.js';

const config = (limit: string, ciModels: string) => `version: 1
${coreAndOpenai('spend-e2e')}gateways:
  main:
    project: core
    defaultModel: gpt-4o-mini
    credentials: [openai]
    settings: { spendLimitUsd: "${limit}", window: day }
    tokens:
      ci: { scopes: [run], spendLimit: "30.00", spendWindow: monthly, allowedModels: [${ciModels}] }
      batch: { scopes: [run] }
`;

let w: World;
const idOf = (address: string): string =>
  (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { id: string }> }).resources[address]!.id;

beforeAll(async () => {
  // The emulator's clock at noon (UTC) of today, whatever the hour: the usage an hour ago then falls in the current
  // day (and week and month) at any wall-clock time, midnight included.
  const hour = new Date().getUTCHours();
  w = await world({ account: acme, clockOffset: `${hour > 12 ? '-' : ''}${Math.abs(12 - hour)}h` });
  w.config(config('40.00', ''));
  // Arrangement, in-process (the CLI's entry, no subprocess): the plans below run the real CLI.
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  if (applied.code !== 0) throw new Error(applied.stderr);
  w.emulator.addUsage([
    {
      gatewayId: idOf('gateway.main'),
      tokenId: idOf('gateway_token.main/ci'),
      model: 'gpt-4o',
      requests: 40,
      costUsd: '26.00',
      ago: 3_600_000,
    },
    // A model name as a hostile service might send it: terminal escapes and HTML.
    {
      gatewayId: idOf('gateway.main'),
      tokenId: idOf('gateway_token.main/ci'),
      model: 'evil\u001b[31m<img src=x onerror=alert(1)>',
      requests: 3,
      costUsd: '1.00',
      ago: 3_600_000,
    },
  ]);
  w.config(config('25.00', 'gpt-4o-mini'));
}, 60_000);
afterAll(() => w.close());

describe('cplane plan shows spend', () => {
  it('text: the gateways, usage, warnings and the headline; escapes what the API named', async () => {
    const run = await w.cli(['plan', w.dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Spend (maximum authorised, normalised to 30 days):');
    expect(run.stdout).toContain(
      'gateway.main: own limit $40.00/day ($1,200/30d) → $25.00/day ($750/30d); tokens unlimited → unlimited; max $1,200/30d → $750/30d',
    );
    expect(run.stdout).toContain('Max authorised: $1,200/30d → $750/30d (-$450)');
    expect(run.stdout).toContain(
      '! gateway.main: new limit $25.00/day is below the $27.00 already spent in the current day: requests would be refused at once',
    );
    expect(run.stdout).toContain('! gateway_token.main/batch: no spend limit, on a gateway limited to $25.00/day');
    expect(run.stdout).toContain('! gateway_token.main/ci: model "gpt-4o" leaves allowedModels but carried 40 requests in the last 7 days');
    expect(run.stdout).not.toContain('\u001b');
  });

  it('--json: the spend section, valid against the schema, one usage read', async () => {
    w.emulator.resetStats();
    const run = await w.cli(['plan', w.dir, '--json']);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as Plan;
    expect(w.emulator.stats().byOperation.getUsageMetrics).toBe(1);
    expect(plan.spend).toMatchObject({ before: '1200.00', after: '750.00', delta: '-450.00', usageReads: 1 });
    expect(plan.spend!.gateways[0]!.usage).toMatchObject({ spend7d: '27.00', requests7d: 48 });
    expect(
      plan.notices
        .filter((n) => n.code === 'spend')
        .map((n) => n.data.warning)
        .sort(),
    ).toEqual(['limit_below_spend', 'model_with_traffic_removed', 'model_with_traffic_removed', 'token_without_limit']);
  });

  it('--markdown and the --github step summary: the headline and the warnings, with no HTML from the API', async () => {
    const markdown = (await w.cli(['plan', w.dir, '--markdown'])).stdout;
    expect(markdown).toContain('**Max authorised: $1,200/30d → $750/30d (-$450)**');
    expect(markdown).toContain('> [!WARNING]');
    // Escaped: shown as text, never an element.
    expect(markdown).toContain('\\<img src=x onerror=alert(1)\\>');
    expect(markdown).not.toMatch(/[^\\]<img/);
    const temp = mkdtempSync(join(tmpdir(), 'cplane-gh-'));
    onTestFinished(() => rmSync(temp, { recursive: true, force: true }));
    const summary = join(temp, 'summary.md');
    writeFileSync(summary, '');
    const run = await w.cli(['plan', w.dir, '--github'], {
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: join(temp, 'output'),
      RUNNER_TEMP: temp,
    });
    expect(run.code).toBe(0);
    expect(readFileSync(summary, 'utf8')).toContain('**Max authorised: $1,200/30d → $750/30d (-$450)**');
  });

  it('with a Service Account token: "spend not read", the rest of the plan complete', async () => {
    w.emulator.resetStats();
    const run = await w.cliAs(fixtures.tokens.serviceAccount, ['plan', w.dir], { CPLANE_STATE_KEY: w.env.CPLANE_STATE_KEY });
    expect(w.emulator.stats().byOperation.getUsageMetrics).toBe(0);
    expect(run.stdout).toContain('? spend not read: GET /usage/metrics is human-only');
    expect(run.stdout).toContain('Max authorised: $1,200/30d → $750/30d (-$450)');
    expect(run.stdout).toContain('~ settings.spendLimitUsd = "40.00" -> "25.00"');
  });
});

describe('a hostile usage answer', () => {
  it('a cost that is not a decimal amount fails the plan naming the operation and field, never a wrong total', async () => {
    const proxy = await hostileProxy(w.emulator.url, (req, _body, res) => {
      if (!req.url?.startsWith('/v1/usage/metrics')) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ok: true,
          data: [
            {
              bucket_start: new Date().toISOString(),
              token_id: null,
              model: 'gpt-4o',
              requests: 1,
              errors: 0,
              input_tokens: 1,
              output_tokens: 1,
              cost_usd: '1e309',
            },
          ],
        }),
      );
      return true;
    });
    try {
      const run = await w.cli(['plan', w.dir, '--json'], { CPLANE_BASE_URL: proxy.url });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('getUsageMetrics');
      expect(run.stderr).toContain('cost_usd');
    } finally {
      await proxy.close();
    }
  });
});

describe('a role without usage:read', () => {
  it('a 403 on the usage read says "spend not read" with the reason, and the plan is complete (exit 0)', async () => {
    const proxy = await hostileProxy(w.emulator.url, (req, _body, res) => {
      if (!req.url?.startsWith('/v1/usage/metrics')) return false;
      res.writeHead(403, { 'content-type': 'application/json', 'x-request-id': 'req-no-usage' });
      res.end(JSON.stringify({ ok: false, error: { code: 'forbidden', message: 'insufficient_permission' }, requestId: 'req-no-usage' }));
      return true;
    });
    try {
      const run = await w.cli(['plan', w.dir, '--detailed-exitcode'], { CPLANE_BASE_URL: proxy.url });
      expect(run.code).toBe(2);
      expect(run.stdout).toContain('? spend not read: GET /usage/metrics: 403 insufficient_permission (request id req-no-usage)');
      expect(run.stdout).toContain('Max authorised: $1,200/30d → $750/30d (-$450)');
      expect(run.stdout).not.toContain('already spent');
    } finally {
      await proxy.close();
    }
  });
});

describe('a saved plan with spend', () => {
  it('is saved with its spend, read back valid, and applied', async () => {
    const planFile = join(w.temp, 'spend.plan');
    const saved = await w.cli(['plan', w.dir, '--out', planFile]);
    expect(saved.code).toBe(0);
    expect((JSON.parse(readFileSync(planFile, 'utf8')) as Plan).spend).toMatchObject({ before: '1200.00', after: '750.00' });
    const applied = await w.cli(['apply', planFile, w.dir]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    // Applied: nothing spend-related is left to change, so the next plan reads no usage and shows no spend.
    w.emulator.resetStats();
    const after = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as Plan;
    expect(after.spend).toBeUndefined();
    expect(w.emulator.stats().byOperation.getUsageMetrics).toBe(0);
  });
});
