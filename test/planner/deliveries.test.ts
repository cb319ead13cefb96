// The revocations that wait for a delivery (planner/stages/deliveries.ts), as plain data: a token step's writes that settle
// a superseded token move after the writes of the record step that delivers the token, marked with the token's
// address; a token step left with nothing is dropped, its change lines kept by the record's step; a plan
// without a delivery of that token is left as it is.
import { describe, expect, it } from 'vitest';
import type { PlanStep, PlannedWrite } from '../../src/plan-model/index.js';
import { revokeAfterDelivery } from '../../src/planner/stages/deliveries.js';

const TOKEN = 'gateway_token.prod/ci';
const RECORD = 'record.core/ci-token';

const write = (id: string, operation: PlannedWrite['operation'], effects: PlannedWrite['effects'] = {}): PlannedWrite => ({
  id,
  operation,
  path: {},
  idempotencyKey: id,
  effects,
  summary: id,
});
const step = (address: string, writes: PlannedWrite[], rest: Partial<PlanStep> = {}): PlanStep => ({
  address,
  kind: address.split('.')[0]!,
  action: 'update',
  changes: [],
  dependsOn: [],
  writes,
  ...rest,
});

const create = write(`${TOKEN}#0`, 'createGatewayToken', { id: { result: 'token_id' }, seal: { name: 'plaintext', result: 'plaintext' } });
const revoke = write(`${TOKEN}#1`, 'revokeGatewayToken', { settleSuperseded: 'old-id' });
const delivery = step(RECORD, [write(`${RECORD}#0`, 'createRecordVersion'), write(`${RECORD}#1`, 'grantServiceAccount')], {
  secrets: { value: { output: { address: TOKEN, name: 'plaintext' } } },
  causes: ['delivery'],
});

describe('revocations after a delivery', () => {
  it("moves the revocation after the delivery, for the token's address, and keeps the creation in the token's step", () => {
    const [token, record] = revokeAfterDelivery([step(TOKEN, [create, revoke], { action: 'replace' }), delivery]);
    expect(token!.writes).toEqual([create]);
    expect(record!.writes.map((w) => [w.id, w.address])).toEqual([
      [`${RECORD}#0`, undefined],
      [`${RECORD}#1`, undefined],
      [`${TOKEN}#1`, TOKEN],
    ]);
    expect(record!.causes).toEqual(['delivery']);
    expect(record!.notes).toEqual([`${TOKEN}: the old one is revoked only after the new one is delivered here`]);
  });

  it('drops a token step that only finished a renewal, its change lines going with its writes', () => {
    const changes = [{ path: 'revoke superseded token', before: 'old-id' }];
    const steps = revokeAfterDelivery([step(TOKEN, [revoke], { action: 'renew', changes }), delivery]);
    expect(steps.map((s) => s.address)).toEqual([RECORD]);
    expect(steps[0]!.changes).toEqual(changes);
    expect(steps[0]!.writes.at(-1)).toMatchObject({ operation: 'revokeGatewayToken', address: TOKEN });
  });

  it('leaves a revocation alone when no step delivers that token in this plan', () => {
    const steps = [step(TOKEN, [revoke], { action: 'renew' }), step(RECORD, [write(`${RECORD}#0`, 'updateRecord')])];
    expect(revokeAfterDelivery(steps)).toEqual(steps);
  });
});
