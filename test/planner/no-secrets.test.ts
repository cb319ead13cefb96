// No secret value ever appears in a plan, in any output format or in a saved plan file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fullConfig, harness, secrets } from './harness.js';

describe('no secret in plan output', () => {
  it('text, JSON, Markdown and --out hold none of the secrets, on create and on rotation', async () => {
    const h = await harness();
    try {
      h.config(fullConfig);
      const outputs: string[] = [];
      const collect = async (env: NodeJS.ProcessEnv = {}) => {
        for (const format of [[], ['--json'], ['--markdown']]) {
          const result = await h.cli(['plan', ...format, '--out', 'p.json'], env);
          expect(result.code).toBe(0);
          outputs.push(result.stdout, result.stderr, readFileSync(join(h.dir, 'p.json'), 'utf8'));
        }
      };
      await collect();
      await h.converge();
      // Rotation and new values: the plan must say (sensitive), never the value.
      await collect({ OPENAI_KEY: secrets.OPENAI_KEY_2, STRIPE: `${secrets.STRIPE}-v2`, OTEL_AUTH: `${secrets.OTEL_AUTH}-v2` });
      expect(outputs.join('\n')).toContain('(sensitive)');
      const all = outputs.join('\n');
      for (const value of [...Object.values(secrets), `${secrets.STRIPE}-v2`, `${secrets.OTEL_AUTH}-v2`]) expect(all).not.toContain(value);
      // The token plaintext sealed into state at apply is not in any output either.
      const sealed = h.state.data.resources['gateway_token.prod/ci']!.sealed!.plaintext!;
      expect(all).not.toContain(h.state.crypto.open('gateway_token.prod/ci', sealed));
    } finally {
      await h.close();
    }
  });
});
