// The `$wrap` placeholder: recognised only in its one shape (a record id or `$ref`, a recipient id, a public
// key, nothing else), so an altered plan cannot slip another shape past the applier; and resolved by the key
// ring with the record's id from state.
import { describe, expect, it } from 'vitest';
import { resolveTemplate, type KeyRing } from '../../src/applier/template.js';
import { placeholderOf, type Template } from '../../src/plan-model/index.js';

const target = { record: { $ref: 'record.shop/key' }, recipient: 'reader-1', publicKey: 'cHVibGlj' };

describe('$wrap', () => {
  it('is a placeholder in its one shape', () => {
    expect(placeholderOf({ $wrap: target })).toEqual({ tag: '$wrap', wrap: target });
    expect(placeholderOf({ $wrap: { ...target, record: 'rec-1' } })).toMatchObject({ tag: '$wrap' });
  });

  it('is malformed with another shape: a missing or extra member, or a record that is neither an id nor a $ref', () => {
    const { publicKey: _p, ...missing } = target;
    for (const value of [
      missing,
      { ...target, extra: 'x' },
      { ...target, record: { $ref: 'a', more: 1 } },
      { ...target, record: 3 },
      'text',
    ]) {
      expect(placeholderOf({ $wrap: value } as Template)).toMatchObject({ tag: 'malformed', key: '$wrap' });
    }
    expect(placeholderOf({ $wrap: target, other: 1 } as Template)).toMatchObject({ tag: 'malformed' });
  });

  it("is resolved by the key ring with the record's id from state, and never counts as a secret", async () => {
    const calls: unknown[] = [];
    const keyRing: KeyRing = {
      secret: () => 'unused',
      encrypt: () => ({ value: {}, dataKey: new Uint8Array(32), digest: '' }),
      wrap: async (request) => (calls.push(request), 'cplane-hpke2.wrapped'),
      remember: () => undefined,
    };
    const resources = { 'record.shop/key': { kind: 'record', id: 'rec-9', inputs: {}, fingerprints: {}, createdAt: '', updatedAt: '' } };
    const { value, secrets } = await resolveTemplate({ wrappedDek: { $wrap: target } }, {
      resources,
      sources: {},
      address: 'service_account_grant.shop/key/ci',
      keyRing,
    } as never);
    expect(value).toEqual({ wrappedDek: 'cplane-hpke2.wrapped' });
    expect(calls).toEqual([{ recordId: 'rec-9', recipientId: 'reader-1', publicKey: 'cHVibGlj' }]);
    expect(secrets.size).toBe(0);
  });
});
