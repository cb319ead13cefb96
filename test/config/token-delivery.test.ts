/**
 * `deliverTo` of a gateway token: the record must be declared in the configuration, have no value of its own,
 * and receive one token only; each mistake is its exact diagnostic at the record's name. A valid one gives the
 * record the token's plaintext as its value's source, and makes it depend on the token.
 */
import { describe, expect, test } from 'vitest';
import { BASE, load } from './helpers.js';

const withDelivery = (record: string, extra = '') =>
  `${BASE}    tokens:\n      ci:\n        scopes: [run]\n        deliverTo: { record: ${record} }\n${extra}`;

async function only(files: Record<string, string>) {
  const result = await load(files);
  expect(result.desired).toBeUndefined();
  expect(result.diagnostics).toHaveLength(1);
  return result.diagnostics[0]!;
}

describe('deliverTo', () => {
  test("the record receives the token: its value comes from the token's sealed plaintext, after the token", async () => {
    const result = await load({ 'main.yaml': withDelivery('payments/stripe-key') });
    expect(result.diagnostics).toEqual([]);
    const record = result.desired!.resources.find((r) => r.address === 'record.payments/stripe-key')!;
    expect(record.secrets).toEqual({ value: { output: { address: 'gateway_token.prod/ci', name: 'plaintext' } } });
    expect(record.dependsOn).toContain('gateway_token.prod/ci');
    const token = result.desired!.resources.find((r) => r.address === 'gateway_token.prod/ci')!;
    expect(token.attributes).toMatchObject({ deliverTo: 'payments/stripe-key' });
  });

  test('a record that is not declared', async () => {
    const d = await only({ 'main.yaml': withDelivery('payments/stripe-kee') });
    expect(d).toMatchObject({ code: 'unknown_delivery_target', range: { file: 'main.yaml', line: 20, col: 30 } });
    expect(d.summary).toBe(
      'deliverTo.record of gateway_token.prod/ci: no record "payments/stripe-kee" is declared; did you mean "payments/stripe-key"?',
    );
    expect(d.detail).toBe('Declare the record in this configuration (without a value), or correct the name (PROJECT/RECORD).');
  });

  test('a record with a value of its own', async () => {
    const files = {
      'main.yaml': withDelivery('payments/stripe-key').replace(
        '        rotationIntervalDays: 90\n',
        '        value: { env: STRIPE_KEY }\n',
      ),
    };
    const d = await only(files);
    expect(d).toMatchObject({ code: 'delivery_target_has_value', range: { file: 'main.yaml', line: 20, col: 30 } });
    expect(d.summary).toBe('deliverTo.record of gateway_token.prod/ci: record.payments/stripe-key has its own value (main.yaml:6:7)');
    expect(d.detail).toBe(
      'A record that receives a delivery takes its value from it alone: remove the value of record.payments/stripe-key, or deliver to another record.',
    );
  });

  test('two tokens delivered to one record', async () => {
    const d = await only({
      'main.yaml': withDelivery(
        'payments/stripe-key',
        '      deploy:\n        scopes: [run]\n        deliverTo: { record: payments/stripe-key }\n',
      ),
    });
    expect(d).toMatchObject({ code: 'delivery_target_taken', range: { file: 'main.yaml', line: 23, col: 30 } });
    expect(d.summary).toBe(
      'deliverTo.record of gateway_token.prod/deploy: record.payments/stripe-key already receives the delivery of gateway_token.prod/ci',
    );
  });

  test('a record not written as PROJECT/RECORD is refused by the schema', async () => {
    const d = await only({ 'main.yaml': withDelivery('stripe-key') });
    expect(d.range).toMatchObject({ file: 'main.yaml', line: 20, col: 30 });
    expect(d.code).toBe('invalid_value');
  });
});

describe('deliverTo in a module and in a forEach', () => {
  test("a module's token names the module's record; an instance names its instance", async () => {
    const team = `variables:
  team: { type: string }
projects:
  core:
    records:
      ci-token: { grants: { serviceAccounts: [ci-deployer] } }
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: core
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci: { scopes: [run], deliverTo: { record: core/ci-token } }
`;
    const result = await load({
      'main.yaml': `version: 1
modules:
  payments: { source: ./modules/team, inputs: { team: payments } }
projects:
  shop:
    records:
      token:
        forEach: [a, b]
credentials:
  openai2: { provider: openai, secret: { env: OPENAI_API_KEY } }
gateways:
  shop:
    project: shop
    defaultModel: gpt-4o-mini
    credentials: [openai2]
    tokens:
      t:
        forEach: [a, b]
        scopes: [run]
        deliverTo: { record: "shop/token[\${each.key}]" }
`,
      'modules/team/team.yaml': team,
    });
    expect(result.diagnostics).toEqual([]);
    const secretsOf = (address: string) => result.desired!.resources.find((r) => r.address === address)!.secrets;
    expect(secretsOf('module.payments.record.core/ci-token')).toEqual({
      value: { output: { address: 'module.payments.gateway_token.main/ci', name: 'plaintext' } },
    });
    expect(secretsOf('record.shop/token[b]')).toEqual({ value: { output: { address: 'gateway_token.shop/t[b]', name: 'plaintext' } } });
  });
});
