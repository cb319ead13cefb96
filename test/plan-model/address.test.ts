// Addresses have one parser and one formatter, with room for nested kinds, instance keys and module prefixes.
import { describe, expect, test } from 'vitest';
import {
  childAddress,
  formatAddress,
  kindOf,
  localPart,
  movedWithParent,
  parseAddress,
  resourceAddress,
} from '../../src/plan-model/index.js';

describe('parseAddress and formatAddress', () => {
  test.each([
    ['project.payments', { modules: [], kind: 'project', segments: [{ name: 'payments' }] }],
    ['record.payments/stripe-key', { modules: [], kind: 'record', segments: [{ name: 'payments' }, { name: 'stripe-key' }] }],
    ['gateway.team[payments]', { modules: [], kind: 'gateway', segments: [{ name: 'team', key: 'payments' }] }],
    [
      'gateway_token.team[payments]/ci',
      { modules: [], kind: 'gateway_token', segments: [{ name: 'team', key: 'payments' }, { name: 'ci' }] },
    ],
    ['module.payments.gateway.prod', { modules: ['payments'], kind: 'gateway', segments: [{ name: 'prod' }] }],
    [
      'module.a.module.b.record_grant.p/r/ci-deployer',
      { modules: ['a', 'b'], kind: 'record_grant', segments: [{ name: 'p' }, { name: 'r' }, { name: 'ci-deployer' }] },
    ],
  ])('%s parses and formats back to itself', (text, parsed) => {
    expect(parseAddress(text)).toEqual(parsed);
    expect(formatAddress(parseAddress(text)!)).toBe(text);
  });

  test.each([
    '',
    'gateway',
    'gateway.',
    '.prod',
    'Gateway.prod',
    'gateway.prod/',
    'gateway.a[]',
    'gateway.a[x]y',
    'module.gateway.prod',
    'module..gateway.prod',
  ])('refuses %j', (text) => {
    expect(parseAddress(text)).toBeUndefined();
  });
});

test('builders and readers go through the same grammar', () => {
  expect(resourceAddress('gateway', 'prod')).toBe('gateway.prod');
  expect(childAddress('gateway.team[payments]', 'gateway_token', 'ci')).toBe('gateway_token.team[payments]/ci');
  expect(childAddress('module.m.gateway.prod', 'otel_export')).toBe('module.m.otel_export.prod');
  expect(kindOf('module.m.gateway_token.prod/ci')).toBe('gateway_token');
  expect(kindOf('nonsense')).toBeUndefined();
  expect(localPart('record.payments/stripe-key')).toBe('payments/stripe-key');
});

test('what is declared inside a parent moves with it, instance keys and modules included', () => {
  expect(movedWithParent('gateway_token.a/ci', 'gateway.a', 'gateway.team[a]')).toBe('gateway_token.team[a]/ci');
  expect(movedWithParent('otel_export.a', 'gateway.a', 'module.m.gateway.a')).toBe('module.m.otel_export.a');
  expect(movedWithParent('gateway_token.ab/ci', 'gateway.a', 'gateway.b')).toBeUndefined();
});
