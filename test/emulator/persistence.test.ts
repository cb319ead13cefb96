// Persistence to a data file: written atomically after writes, loaded by the next emulator; no secret
// (provider key, OTel header value, token plaintext) is ever written to it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures, startEmulator } from '../../src/emulator/index.js';

const acme = fixtures.accounts[0]!.id;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('data file', () => {
  it('keeps the data across restarts, with no secret in the file and no temporary file left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cplane-emulator-'));
    dirs.push(dir);
    const dataFile = join(dir, 'data.json');

    const first = await startEmulator({ dataFile });
    const client = createClient({ baseUrl: first.url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
    const { project_id } = await client.call('createProject', { body: { accountId: acme, name: 'persisted', description: '' } });
    const credential = await client.call('createCredential', {
      body: { providerId: fixtures.providers[0]!.id, label: 'p', secret: 'sk-persisted-secret' },
    });
    const gateway = await client.call('createGateway', {
      body: {
        projectId: project_id,
        name: 'p',
        slug: 'persisted',
        defaultProviderId: fixtures.providers[0]!.id,
        defaultModel: 'gpt-4o',
        credentialIds: [credential.credential_id],
      },
    });
    await client.call('updateOtelExport', { path: { id: gateway.gateway_id }, body: { headers: { 'X-Key': 'otel-persisted-secret' } } });
    const token = await client.call('createGatewayToken', { path: { id: gateway.gateway_id }, body: { name: 't', scopes: ['run'] } });
    await client.close();
    await first.close();

    const text = readFileSync(dataFile, 'utf8');
    expect(text).toContain('persisted');
    for (const secret of ['sk-persisted-secret', 'otel-persisted-secret', token.plaintext]) expect(text).not.toContain(secret);
    expect(readdirSync(dir)).toEqual(['data.json']);

    const second = await startEmulator({ dataFile });
    const again = createClient({ baseUrl: second.url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
    expect(await again.call('getProject', { path: { id: project_id } })).toMatchObject({ name: 'persisted' });
    expect((await again.call('getOtelExport', { path: { id: gateway.gateway_id } })).headerNames).toEqual(['X-Key']);
    await again.close();
    await second.close();
  });

  it('with readOnlyData, loads the file and never writes it back (what the benchmarks use)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cplane-emulator-'));
    dirs.push(dir);
    const dataFile = join(dir, 'data.json');
    await (await startEmulator({ dataFile })).close();
    const saved = readFileSync(dataFile, 'utf8');

    const emulator = await startEmulator({ dataFile, readOnlyData: true });
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
    const { project_id } = await client.call('createProject', { body: { accountId: acme, name: 'not-saved', description: '' } });
    expect(await client.call('getProject', { path: { id: project_id } })).toMatchObject({ name: 'not-saved' });
    await client.close();
    await emulator.close();
    expect(readFileSync(dataFile, 'utf8')).toBe(saved);
  });

  it('refuses a file that is not an emulator data file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cplane-emulator-'));
    dirs.push(dir);
    const dataFile = join(dir, 'other.json');
    writeFileSync(dataFile, '{"hello": "world"}');
    await expect(startEmulator({ dataFile })).rejects.toThrow(`${dataFile} is not an emulator data file`);
  });
});
