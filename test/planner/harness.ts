// Arrangement shared by the planner scenario tests: an emulator on a random port, a configuration folder written
// by the test, a real state store, the typed client, makePlan and applyPlan, and the real CLI as a subprocess.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createClient, type ApiClient, type ClientEvent } from '../../src/api/index.js';
import { applyPlan, stateKeyRing, type ApplyResult } from '../../src/applier/index.js';
import { resolveSecret, type DesiredState } from '../../src/config/index.js';
import { loadConfiguration } from '../../src/providers/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { makePlan, PlanError, type MakePlanInput } from '../../src/planner/index.js';
import { planSchemaProblems } from '../../src/saved-plan/index.js';
import type { Plan } from '../../src/plan-model/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { closeArrangement } from '../helpers/close-arrangement.js';
import { builtCli } from '../helpers/built-cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

/** Acme Staging: the admin can do everything there. */
export const account = fixtures.accounts[1]!.id;

/** Every secret value the scenario tests use; a test searches the output for each. */
export const secrets = {
  OPENAI_KEY: 'sk-openai-planner-secret-111',
  OPENAI_KEY_2: 'sk-openai-planner-secret-222',
  STRIPE: 'stripe-planner-plaintext-333',
  OTEL_AUTH: 'Bearer otel-planner-secret-444',
};

export const baseEnv: NodeJS.ProcessEnv = {
  CPLANE_STATE_KEY: Buffer.alloc(32, 9).toString('base64'),
  ...secrets,
};

export interface Harness {
  emulator: RunningEmulator;
  dir: string;
  client: ApiClient;
  events: ClientEvent[];
  env: NodeJS.ProcessEnv;
  state: StateStore;
  /** Writes `main.yaml` of the configuration folder. */
  config(yaml: string): void;
  desired(): Promise<DesiredState>;
  plan(options?: Partial<Pick<MakePlanInput, 'mode' | 'targets' | 'client' | 'replace'>>): Promise<Plan>;
  apply(plan: Plan): Promise<ApplyResult>;
  /** Plans and applies; fails the test when a step fails. */
  converge(): Promise<Plan>;
  cli(args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The same command with the same environment and folder, run in-process (test/helpers/in-process-cli.ts): for diagnostics, where the process is not the subject. */
  run(args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export async function harness(options: { token?: string; account?: string } = {}): Promise<Harness> {
  const emulator = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'cplane-planner-'));
  const events: ClientEvent[] = [];
  const acct = options.account ?? account;
  const client = createClient({
    baseUrl: emulator.url,
    token: options.token ?? fixtures.tokens.admin,
    accountId: acct,
    onEvent: (e) => events.push(e),
  });
  const env = { ...baseEnv };
  const state = await openState({ configDir: dir, account: acct, env, command: 'test', lock: true });
  const h: Harness = {
    emulator,
    dir,
    client,
    events,
    env,
    state,
    config(yaml) {
      writeFileSync(join(dir, 'main.yaml'), `version: 1\naccount: ${acct}\n${yaml}`);
    },
    async desired() {
      const { desired, diagnostics } = await loadConfiguration(dir, { env, cwd: dir });
      if (!desired) throw new Error(`configuration errors: ${JSON.stringify(diagnostics)}`);
      return desired;
    },
    async plan(extra = {}) {
      const plan = await makePlan({ desired: await h.desired(), state: h.state, client, account: acct, env, ...extra });
      // Every plan a scenario makes is also checked against schema/plan.schema.json, as it would be saved.
      const problems = await planSchemaProblems(JSON.parse(JSON.stringify(plan)));
      if (problems.length > 0) throw new Error(`plan does not match schema/plan.schema.json: ${problems.join('; ')}`);
      return plan;
    },
    apply(plan) {
      return applyPlan({ plan, state: h.state, client, keyRing: stateKeyRing(h.state, (source) => resolveSecret(source, env), client) });
    },
    async converge() {
      const plan = await h.plan();
      const result = await h.apply(plan);
      if (result.failed.length > 0) throw new Error(`apply failed: ${JSON.stringify(result.failed)}`);
      return plan;
    },
    cli(args, extraEnv = {}) {
      const childEnv = cliEnv(extraEnv);
      return new Promise((done) => {
        execFile(process.execPath, [builtCli(), ...args], { cwd: dir, env: childEnv }, (error, stdout, stderr) => {
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
        });
      });
    },
    run: (args, extraEnv = {}) => runInProcess(args, cliEnv(extraEnv), dir),
    close: () => closeArrangement(h),
  };
  /** What the CLI runs with: the scenario's secrets and state key, the emulator's address, the token and account. */
  function cliEnv(extraEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      ...env,
      CPLANE_BASE_URL: emulator.url,
      CPLANE_TOKEN: options.token ?? fixtures.tokens.admin,
      CPLANE_ACCOUNT: acct,
      ...extraEnv,
    };
  }
  return h;
}

/** The configuration most scenarios start from: one object of every kind. */
export const fullConfig = `
projects:
  payments:
    description: Payment services
    records:
      stripe-key:
        tags: [payments]
        value: { env: STRIPE }
credentials:
  openai:
    provider: openai
    label: OpenAI planner
    secret: { env: OPENAI_KEY }
gateways:
  prod:
    project: payments
    name: Prod
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    settings:
      requestsPerMinute: 600
      cache: { enabled: true, ttlSeconds: 300 }
    otelExport:
      enabled: true
      endpoint: https://otel.example.com/v1
      exportMetrics: true
      exportTraces: false
      headers:
        Authorization: { env: OTEL_AUTH }
    tokens:
      ci:
        scopes: [run]
        expiresInDays: 30
        rateLimitPerMin: 60
`;

export const actions = (plan: Plan) => plan.steps.map((s) => `${s.action} ${s.address}`);

/**
 * Hooks for the calling describe block: each test gets a fresh harness with `config` written (and converged when
 * `converge` is set), closed after the test. Returns the running test's harness.
 */
export function eachTestHarness(setup: { config?: string; converge?: boolean } = {}): () => Harness {
  let current: Harness | undefined;
  beforeEach(async () => {
    current = await harness();
    if (setup.config !== undefined) current.config(setup.config);
    if (setup.converge) await current.converge();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('the harness exists only while a test runs');
    return current;
  };
}

/** The diagnostics a failed plan ended with, as code, address and `file:line`: what tests assert on (never the sentences). */
export function problemsOf(error: unknown): { code: string; address?: string; at?: string }[] {
  if (!(error instanceof PlanError)) throw error;
  return error.diagnostics.map((d) => ({
    code: d.code,
    ...(d.address ? { address: d.address } : {}),
    ...(d.range ? { at: `${d.range.file}:${d.range.line}` } : {}),
  }));
}
