// Shared arrangements of the applier tests: an emulator, a client, a real state in a temp folder, and hand-built plans.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ApiClient, type ClientEvent } from '../../src/api/index.js';
import { applyPlan, stateKeyRing, type ApplyEvent, type ApplyOptions, type ApplyResult } from '../../src/applier/index.js';
import { resolveSecret } from '../../src/config/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import type { Plan, PlanStep, PlannedWrite, Template, WriteEffects } from '../../src/plan-model/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { closeArrangement } from '../helpers/close-arrangement.js';

export const account = fixtures.accounts[1]!.id;
export const openaiId = fixtures.providers[0]!.id;
export const stateKey = new Uint8Array(32).fill(3);
export const env: NodeJS.ProcessEnv = {
  CPLANE_STATE_KEY: Buffer.from(stateKey).toString('base64'),
  OPENAI_KEY: 'sk-openai-secret-value',
  RECORD_VALUE: 'record-plaintext-42',
};

export interface Harness {
  url: string;
  emulator: Awaited<ReturnType<typeof startEmulator>>;
  client: ApiClient;
  state: StateStore;
  dir: string;
  events: ApplyEvent[];
  clientEvents: ClientEvent[];
  /** Called on every client event, e.g. to act while a request is in flight. */
  onClientEvent?: (event: ClientEvent) => void;
  apply(plan: Plan, options?: Partial<ApplyOptions>): Promise<ApplyResult>;
  reopen(): Promise<StateStore>;
  close(): Promise<void>;
}

export async function harness(options: { latencyMs?: number; faults?: string; maxAttempts?: number } = {}): Promise<Harness> {
  const emulator = await startEmulator({ latencyMs: options.latencyMs ?? 0, ...(options.faults ? { faults: options.faults } : {}) });
  const dir = mkdtempSync(join(tmpdir(), 'cplane-applier-'));
  const clientEvents: ClientEvent[] = [];
  const client = createClient({
    baseUrl: emulator.url,
    token: fixtures.tokens.admin,
    accountId: account,
    retry: {
      baseDelayMs: 1,
      maxDelayMs: 5,
      maxRetryAfterMs: 5,
      random: () => 0.5,
      ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    },
    onEvent: (e) => {
      clientEvents.push(e);
      h.onClientEvent?.(e);
    },
  });
  const open = () => openState({ configDir: dir, account, env, command: 'test', lock: true });
  const h: Harness = {
    url: emulator.url,
    emulator,
    client,
    state: await open(),
    dir,
    events: [],
    clientEvents,
    apply: (plan, extra = {}) =>
      applyPlan({
        plan,
        state: h.state,
        client,
        onEvent: (e) => h.events.push(e),
        keyRing: stateKeyRing(h.state, (source) => resolveSecret(source, env)),
        ...extra,
      }),
    async reopen() {
      await h.state.close();
      h.state = await open();
      return h.state;
    },
    close: () => closeArrangement(h),
  };
  return h;
}

export function makePlanOf(steps: PlanStep[]): Plan {
  return {
    formatVersion: 4,
    notices: [],
    cplaneVersion: '0.1.0',
    createdAt: new Date().toISOString(),
    account,
    mode: 'normal',
    targets: [],
    steps,
    drift: [],
    unreadable: [],
    summary: { add: steps.length, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 },
  };
}

/** A create step of one write, shaped as the planner makes them. */
function createStep(
  kind: PlanStep['kind'],
  address: string,
  dependsOn: string[],
  write: { operation: PlannedWrite['operation']; path?: Record<string, Template>; body: Template; effects: WriteEffects },
  rest: Pick<PlanStep, 'secrets' | 'inputs'>,
): PlanStep {
  const { operation, path = {}, body, effects } = write;
  return {
    address,
    kind,
    action: 'create',
    changes: [],
    dependsOn,
    writes: [{ id: `${address}#0`, operation, path, body, idempotencyKey: randomUUID(), effects, summary: `${operation} ${address}` }],
    ...rest,
  };
}

export function projectStep(name: string, dependsOn: string[] = []): PlanStep {
  return createStep(
    'project',
    `project.${name}`,
    dependsOn,
    {
      operation: 'createProject',
      body: { accountId: account, name, description: '' },
      effects: { id: { result: 'project_id' } },
    },
    { inputs: { name, description: '' } },
  );
}

export function credentialStep(name: string): PlanStep {
  return createStep(
    'credential',
    `credential.${name}`,
    [],
    {
      operation: 'createCredential',
      body: { providerId: openaiId, label: name, secret: { $secret: 'secret' } },
      effects: { id: { result: 'credential_id' } },
    },
    { secrets: { secret: { env: 'OPENAI_KEY' } }, inputs: { label: name } },
  );
}

export function gatewayStep(name: string, project: string, credential: string): PlanStep {
  return createStep(
    'gateway',
    `gateway.${name}`,
    [`project.${project}`, `credential.${credential}`],
    {
      operation: 'createGateway',
      body: {
        projectId: { $ref: `project.${project}` },
        name,
        slug: name,
        defaultProviderId: openaiId,
        defaultModel: 'gpt-4o-mini',
        credentialIds: [{ $ref: `credential.${credential}` }],
      },
      effects: { id: { result: 'gateway_id' }, parents: { projectId: { $ref: `project.${project}` } } },
    },
    { inputs: { name } },
  );
}

export function tokenStep(gateway: string, name: string): PlanStep {
  return createStep(
    'gateway_token',
    `gateway_token.${gateway}/${name}`,
    [`gateway.${gateway}`],
    {
      operation: 'createGatewayToken',
      path: { id: { $ref: `gateway.${gateway}` } },
      body: { name, scopes: ['run'] },
      effects: {
        id: { result: 'token_id' },
        parents: { gatewayId: { $ref: `gateway.${gateway}` } },
        seal: { name: 'plaintext', result: 'plaintext' },
      },
    },
    { inputs: { name } },
  );
}

export function recordStep(project: string, name: string): PlanStep {
  const address = `record.${project}/${name}`;
  const step = createStep(
    'record',
    address,
    [`project.${project}`],
    {
      operation: 'createRecord',
      body: { projectId: { $ref: `project.${project}` }, name },
      effects: { id: { result: 'record_id' }, parents: { projectId: { $ref: `project.${project}` } } },
    },
    { secrets: { value: { env: 'RECORD_VALUE' } }, inputs: { name } },
  );
  const first = step.writes[0]!;
  // The value is written once the record has its id, bound to it (as record.ts plans it).
  step.writes.push({
    ...first,
    id: `${address}#1`,
    idempotencyKey: randomUUID(),
    operation: 'createRecordVersion',
    path: { id: { $ref: address } },
    body: { $encrypt: { field: 'value', record: { $ref: address }, version: 1 } },
    effects: { valueVersion: { record: 'record_id', version: 'version' } },
  });
  return step;
}
