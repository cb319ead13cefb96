// The graph walk: dependencies first, independent steps in parallel up to the limit, results and secrets recorded in state.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decryptRecordValue, recordKek } from '../../src/crypto/record-value.js';
import type { EncryptedValueT } from '../../src/api/shapes.js';
import {
  credentialStep,
  env,
  gatewayStep,
  harness,
  makePlanOf,
  projectStep,
  recordStep,
  stateKey,
  tokenStep,
  type Harness,
} from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await harness({ latencyMs: 2 });
});
afterEach(async () => h.close());

describe('applyPlan walks the plan graph', () => {
  it('runs dependencies first and independent steps in parallel, never more writes in flight than the limit', async () => {
    const steps = [
      projectStep('alpha'),
      credentialStep('openai-a'),
      gatewayStep('gw-a', 'alpha', 'openai-a'),
      tokenStep('gw-a', 'ci'),
      tokenStep('gw-a', 'web'),
      recordStep('alpha', 'db-password'),
      ...['p1', 'p2', 'p3', 'p4'].map((n) => projectStep(n)),
    ];
    const result = await h.apply(makePlanOf(steps), { parallelism: 3 });

    expect(result.failed).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.done.map((d) => d.address).sort()).toEqual(steps.map((s) => s.address).sort());
    const position = (type: string, address: string) =>
      h.events.findIndex((e) => e.type === type && 'address' in e && e.address === address);
    for (const step of steps)
      for (const dep of step.dependsOn) expect(position('step-started', step.address)).toBeGreaterThan(position('step-done', dep));
    // At most 3 writes in flight; up to twice as many steps run, the others preparing their next write.
    const most = (events: { type: string }[], start: string, ends: string[]) => {
      let now = 0;
      let peak = 0;
      for (const e of events) {
        if (e.type === start) peak = Math.max(peak, ++now);
        if (ends.includes(e.type)) now--;
      }
      return peak;
    };
    expect(most(h.clientEvents, 'request', ['response'])).toBe(3);
    expect(most(h.events, 'step-started', ['step-done', 'step-failed'])).toBeLessThanOrEqual(6);

    const resources = h.state.data.resources;
    expect(h.state.data.journal).toEqual([]);
    expect(resources['gateway.gw-a']?.parents).toEqual({ projectId: resources['project.alpha']?.id });
    expect(resources['gateway_token.gw-a/ci']?.parents).toEqual({ gatewayId: resources['gateway.gw-a']?.id });
    expect(resources['project.p1']?.inputs).toEqual({ name: 'p1', description: '' });
    expect(resources['credential.openai-a']?.fingerprints).toEqual({
      secret: h.state.crypto.fingerprint('credential.openai-a', 'secret', env.OPENAI_KEY!),
    });
    expect(resources['record.alpha/db-password']?.fingerprints.value).toBe(
      h.state.crypto.fingerprint('record.alpha/db-password', 'value', env.RECORD_VALUE!),
    );
  });

  it('seals a new token plaintext in the same save as its id, and never stores a secret in plaintext', async () => {
    const result = await h.apply(
      makePlanOf([
        projectStep('beta'),
        credentialStep('openai-b'),
        gatewayStep('gw-b', 'beta', 'openai-b'),
        tokenStep('gw-b', 'ci'),
        recordStep('beta', 'api-key'),
      ]),
    );
    expect(result.done.find((d) => d.address === 'gateway_token.gw-b/ci')?.sealed).toEqual(['plaintext']);

    const token = h.state.data.resources['gateway_token.gw-b/ci']!;
    const plaintext = h.state.crypto.open('gateway_token.gw-b/ci', token.sealed!.plaintext!);
    const listed = await h.client.call('listGatewayTokens', { path: { id: h.state.data.resources['gateway.gw-b']!.id } });
    expect(listed.map((t) => t.token_id)).toEqual([token.id]);
    expect(plaintext.startsWith(listed[0]!.token_prefix)).toBe(true);

    const file = readFileSync(h.state.path, 'utf8');
    for (const secret of [plaintext, env.OPENAI_KEY!, env.RECORD_VALUE!]) expect(file).not.toContain(secret);
    for (const event of h.events) expect(JSON.stringify(event)).not.toContain(plaintext);
  });

  it('encrypts record values on the client with the state key', async () => {
    await h.apply(makePlanOf([projectStep('gamma'), recordStep('gamma', 'dsn')]));
    const id = h.state.data.resources['record.gamma/dsn']!.id;
    const read = await h.client.call('readRecord', { path: { id }, body: { scope: ['fields'] } });
    const value: EncryptedValueT = { ciphertext: read.fields!.ciphertext, wrapper: read.fields!.wrapper };
    expect(
      decryptRecordValue(recordKek(stateKey), value, { accountId: h.state.data.account, recordId: id, version: read.fields!.version }),
    ).toBe(env.RECORD_VALUE);
  });
});
