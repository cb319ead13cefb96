// Each kind declares every operation its writes may send (`writeOperations`): the journal check that refuses a
// pending write of another kind relies on the list being whole, so it is compared with the provider's own source.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { providerFor } from '../../src/providers/index.js';

const files = { project: 'project', record: 'record', credential: 'credential', gateway: 'gateway', gateway_token: 'gateway-token', otel_export: 'otel-export' } as const;

describe('writeOperations', () => {
  for (const [kind, file] of Object.entries(files)) {
    it(`of ${kind} names exactly the operations its writes send`, () => {
      const source = readFileSync(new URL(`../../src/providers/${file}.ts`, import.meta.url), 'utf8');
      const sent = new Set([...source.matchAll(/writeSpec\(\s*'(\w+)'/g)].map((m) => m[1]));
      expect([...providerFor(kind as keyof typeof files).writeOperations].sort()).toEqual([...sent].sort());
    });
  }
});
