// Local names are derived from names alone and resolve collisions the same way every time.
import { describe, expect, it } from 'vitest';
import { assignLocalNames, slugify, upperSnake } from '../../src/export/local-names.js';

describe('slugify', () => {
  it('lowercases, keeps [a-z0-9-] and collapses the rest into single dashes', () => {
    expect(slugify('Payments (Prod)  EU', 'project')).toBe('payments-prod-eu');
    expect(slugify('--OpenAI__key--', 'credential')).toBe('openai-key');
    expect(slugify('Café', 'x')).toBe('cafe');
  });

  it('falls back to the kind when nothing is left', () => {
    expect(slugify('***', 'record')).toBe('record');
    expect(slugify('', 'token')).toBe('token');
  });

  it('keeps room for a suffix under the 100-character limit', () => {
    expect(slugify('a'.repeat(300), 'x')).toHaveLength(90);
  });
});

describe('assignLocalNames', () => {
  it('appends -2, -3 in (name, id) order, whatever order the API listed them in', () => {
    const items = [
      { id: 'c', name: 'API' },
      { id: 'a', name: 'api' },
      { id: 'b', name: 'api' },
    ];
    const forward = assignLocalNames(items, 'x');
    const backward = assignLocalNames([...items].reverse(), 'x');
    expect(Object.fromEntries(forward)).toEqual({ c: 'api', a: 'api-2', b: 'api-3' });
    expect(Object.fromEntries(backward)).toEqual(Object.fromEntries(forward));
  });

  it('never takes a real name away with a suffixed duplicate', () => {
    const names = assignLocalNames(
      [
        { id: '1', name: 'api' },
        { id: '2', name: 'api' },
        { id: '3', name: 'api-2' },
      ],
      'x',
    );
    expect(Object.fromEntries(names)).toEqual({ 1: 'api', 2: 'api-3', 3: 'api-2' });
  });
});

describe('upperSnake', () => {
  it('makes the environment variable part of a local name or header', () => {
    expect(upperSnake('openai-prod')).toBe('OPENAI_PROD');
    expect(upperSnake('X-Api-Key')).toBe('X_API_KEY');
  });
});
