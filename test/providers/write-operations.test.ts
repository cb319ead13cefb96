// Each kind declares every operation its writes may send (`writeOperations`): the journal check that refuses a
// pending write of another kind relies on the list being whole, so it is compared with the provider's own source.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definitionOf } from '../../src/providers/index.js';

// A record's step also sends its readers' grants and revocations (a new value wrapped again for each reader).
const files = { project: ['project'], record: ['record', 'record-grant'], credential: ['credential'], gateway: ['gateway'], gateway_token: ['gateway-token'], otel_export: ['otel-export'] } as const;
const sentBy = (file: string) => {
  const source = readFileSync(new URL(`../../src/providers/${file}.ts`, import.meta.url), 'utf8');
  return [...source.matchAll(/writeSpec\(\s*'(\w+)'/g)].map((m) => m[1]!);
};

describe('writeOperations', () => {
  for (const [kind, names] of Object.entries(files)) {
    it(`of ${kind} names exactly the operations its writes send`, () => {
      const sent = new Set(names.flatMap(sentBy));
      expect([...definitionOf(kind).writeOperations].sort()).toEqual([...sent].sort());
    });
  }

  it('of the three reader kinds name, together, exactly the grants and revocations record-grant.ts sends, each its own', () => {
    const kinds = ['service_account_grant', 'user_share', 'group_share'].map((kind) => definitionOf(kind).writeOperations);
    expect(kinds.flat().sort()).toEqual([...new Set(sentBy('record-grant'))].sort());
    for (const operations of kinds) expect(operations).toHaveLength(2);
  });
});
