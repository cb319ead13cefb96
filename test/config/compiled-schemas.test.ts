/**
 * The validators compiled at build time (scripts/compile-schemas.mjs) are those of the schemas in
 * schema/: a schema edited without `npm run build` would otherwise be checked with its old version. cplane
 * checks values after interpolation, so the configuration's is compiled without the `${…}` variants an editor reads.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { withoutInterpolation } from '../../src/providers/schemas.js';

test.each(['config', 'state', 'plan'])('src/generated/%s-schema.js embeds the current schema/%s.schema.json', (name) => {
  const schema = JSON.stringify(withoutInterpolation(JSON.parse(readFileSync(`schema/${name}.schema.json`, 'utf8'))));
  const generated = readFileSync(`src/generated/${name}-schema.js`, 'utf8');
  expect(generated.includes(schema), 'run `npm run build` to compile the schemas again').toBe(true);
});
