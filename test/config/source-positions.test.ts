// Positions are kept on the nodes of the parsed configuration: a resource made from a shared node (here a
// YAML anchor reused with an alias, the way a template is) reports the template's line and column, never 1:1.
import { expect, test } from 'vitest';
import { load } from './helpers.js';

const config = `version: 1
projects:
  core: {}
credentials:
  openai: { provider: openai, secret: { env: OPENAI_KEY } }
gateways:
  a:
    project: core
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens: &tokens
      ci:
        scopes: [run]
        dependsOn: [gateway.nope]
  b:
    project: core
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens: *tokens
`;

test('a token declared through an alias reports the line of the template it comes from', async () => {
  const { diagnostics } = await load({ 'main.yaml': config });
  const unknown = diagnostics.filter((d) => d.code === 'unknown_reference');
  expect(unknown.map((d) => d.summary.split(';')[0])).toEqual([
    'Unknown address "gateway.nope" in dependsOn of gateway_token.a/ci',
    'Unknown address "gateway.nope" in dependsOn of gateway_token.b/ci',
  ]);
  expect(unknown.map((d) => d.range)).toEqual([
    { file: 'main.yaml', line: 14, col: 21 },
    { file: 'main.yaml', line: 14, col: 21 },
  ]);
});

test('the resource itself carries the template entry as its source', async () => {
  const fixed = config.replace('        dependsOn: [gateway.nope]\n', '');
  const { desired } = await load({ 'main.yaml': fixed });
  const sources = desired!.resources.filter((r) => r.kind === 'gateway_token').map((r) => [r.address, r.source]);
  expect(sources).toEqual([
    ['gateway_token.a/ci', { file: 'main.yaml', line: 12, col: 7 }],
    ['gateway_token.b/ci', { file: 'main.yaml', line: 12, col: 7 }],
  ]);
});
