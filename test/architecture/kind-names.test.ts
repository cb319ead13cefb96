/**
 * A kind is described once, in its definition module under src/providers/: the rest of the code reads the
 * definitions instead of naming kinds. This counts, for each kind, the files outside src/providers/,
 * src/emulator/ (the fake API) and src/generated/ whose code holds the kind's name as a quoted literal
 * (`'gateway'`, `"gateway"`, or an address written out, `'gateway.prod'`, `` `gateway.${name}` ``).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { kindOrder, kindsNeededBy } from '../../src/providers/index.js';

const excluded = ['src/providers/', 'src/emulator/', 'src/generated/'];

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return codeFiles(path);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const files = [...codeFiles('src'), ...codeFiles('scripts')].filter((file) => !excluded.some((prefix) => file.startsWith(prefix)));
const sources = files.map((file) => ({ file, text: readFileSync(file, 'utf8') }));

function filesNaming(kind: string): string[] {
  const literal = new RegExp(`(['"\`])${kind}(\\1|\\.)`);
  return sources.filter(({ text }) => literal.test(text)).map(({ file }) => file);
}

test('every kind is known to the test (the registry lists eleven)', () => {
  expect([...kindOrder].sort()).toEqual(['credential', 'gateway', 'gateway_token', 'group_share', 'otel_export', 'project', 'project_group_role', 'record', 'record_owner', 'service_account_grant', 'user_share']);
});

test.each([...kindOrder])('the name of kind %s is a quoted literal in at most 2 files outside its definition', (kind) => {
  const naming = filesNaming(kind);
  expect(naming.length, `files naming ${kind}: ${naming.join(', ')}`).toBeLessThanOrEqual(2);
});

test('the derived kind order puts every kind after the kinds it needs', () => {
  for (const [i, kind] of kindOrder.entries()) {
    for (const needed of kindsNeededBy(kind)) expect(kindOrder.indexOf(needed), `${kind} needs ${needed}`).toBeLessThan(i);
  }
});
