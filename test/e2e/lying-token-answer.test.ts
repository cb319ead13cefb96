// A lying server answers the creation of a gateway token with another gateway's token: cplane refuses the
// answer (its gateway and name are not the request's) and records nothing, and the next apply, through an
// honest server, resends the write with its idempotency key and records the token really made, so no token
// stays active and unmanaged. The real CLI through test/helpers/lying-proxy.ts.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { lyingProxy, type LyingProxy } from '../helpers/lying-proxy.js';
import { coreAndOpenai, world, type World } from './helpers.js';

let w: World;
let proxy: LyingProxy;
afterEach(async () => {
  await proxy?.close();
  await w?.close();
});

const gateway = (name: string, tokens: string) => `  ${name}:
    project: core
    slug: gw-${name}
    defaultModel: gpt-4o-mini
    credentials: [openai]
${tokens}`;

const config = (aTokens: string) => `version: 1
${coreAndOpenai('openai-lying')}gateways:
${gateway('a', aTokens)}${gateway('b', '    tokens:\n      ci: { scopes: [run] }\n')}`;

type StateFile = { resources: Record<string, { id: string; parents?: Record<string, string> }>; journal: unknown[] };
const stateOf = () => JSON.parse(readFileSync(w.statePath, 'utf8')) as StateFile;

describe('the answer to a token creation', () => {
  it("about another gateway's token is an error, nothing is recorded, and the next honest apply records the real one", async () => {
    w = await world();
    proxy = await lyingProxy(w.emulator.url);
    w.config(config(''));
    const first = await w.run(['apply', w.dir, '--auto-approve']);
    expect(first.code, first.stderr).toBe(0);
    const before = stateOf().resources;
    const [aId, bId, bToken] = [before['gateway.a']!.id, before['gateway.b']!.id, before['gateway_token.b/ci']!.id];

    // POST /gateways/{a}/tokens is answered with gateway b's token `ci`.
    proxy.setLie((request, answer) => {
      if (request.method !== 'POST' || request.path !== `/v1/gateways/${aId}/tokens`) return undefined;
      const envelope = answer.json as { data: Record<string, unknown> };
      return { ...envelope, data: { ...envelope.data, token_id: bToken, gateway_id: bId } };
    });
    w.config(config('    tokens:\n      ci: { scopes: [run] }\n'));
    const lied = await w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_BASE_URL: proxy.url });
    expect(lied.code).toBe(1);
    expect(lied.stdout + lied.stderr).toContain(
      `the answer of createGatewayToken is not about what was asked: its gateway_id is "${bId}", the request's id is "${aId}"`,
    );
    const after = stateOf();
    expect(after.resources['gateway_token.a/ci']).toBeUndefined();
    expect(after.resources['gateway_token.b/ci']!.id).toBe(bToken);
    expect(after.journal).toHaveLength(1);

    proxy.setLie(undefined);
    const honest = await w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_BASE_URL: proxy.url });
    expect(honest.code, honest.stdout + honest.stderr).toBe(0);
    const tokens = (await w.client.listAll('listGatewayTokens', { path: { id: aId } })).filter((t) => t.revoked_at === null);
    expect(tokens.map((t) => t.name)).toEqual(['ci']);
    expect(stateOf().resources['gateway_token.a/ci']!.id).toBe(tokens[0]!.token_id);
    expect(stateOf().journal).toEqual([]);
  });
});
