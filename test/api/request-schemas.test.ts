// The request schemas of the operation table: valid JSON Schema (the run-time checks skip that check: src/api/request-schemas.ts),
// and the checks built from them still refuse what they should.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { operationNames, operations } from '../../src/api/index.js';
import { bodyProblems, queryProblems } from '../../src/api/request-schemas.js';

describe('request schemas', () => {
  it('are each valid JSON Schema', () => {
    const ajv = new Ajv({ strict: false });
    const invalid: string[] = [];
    for (const name of operationNames) {
      const spec = operations[name] as { query?: object; body?: object };
      for (const part of ['query', 'body'] as const) {
        const schema = spec[part];
        if (schema && !ajv.validateSchema(schema)) invalid.push(`${name} ${part}: ${ajv.errorsText(ajv.errors)}`);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('refuse an unknown query member and a query value of the wrong type, and coerce one given as text', () => {
    expect(queryProblems('listProjects', { bogus: '1' })).toEqual(['query: unknown member "bogus"']);
    const query: Record<string, unknown> = { limit: '5' };
    expect(queryProblems('listProjects', query)).toEqual([]);
    expect(query.limit).toBe(5);
    expect(queryProblems('listProjects', { limit: 'many' })).toEqual(['query/limit: must be integer']);
  });

  it('refuse a body without a required member', () => {
    expect(bodyProblems('createProject', { name: 'p', description: '' })).toEqual(['body: missing required member "accountId"']);
  });
});
