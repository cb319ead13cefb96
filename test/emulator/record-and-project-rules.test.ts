// Projects, records and credentials as the spec describes them: full-replacement PATCH, archive states,
// lists without archived objects, create-or-upsert of records with versions and audit rows, write-only
// provider secrets and base URL checks, and limit/offset paging in creation order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';
import { placeOf, wrapperFor } from '../helpers/readers.js';

const emulator = withEmulator();
const acme = fixtures.accounts[0]!.id;
const openai = fixtures.providers[0]!.id;
let client: ApiClient;

beforeAll(() => {
  client = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
});
afterAll(() => client.close());

const value = (text: string) => ({
  ciphertext: Buffer.from(text).toString('base64'),
  wrapper: { alg: 'xchacha20poly1305', keyId: 'k1', wrappedDek: `dek:${text}` },
});
const newProject = async (name: string) =>
  (await client.call('createProject', { body: { accountId: acme, name, description: 'd' } })).project_id;

describe('projects', () => {
  it('PATCH replaces name, description and isActive: an omitted value is reset, not preserved', async () => {
    const id = await newProject('replace-me');
    const updated = await client.call('updateProject', { path: { id }, body: { name: 'replaced', description: 'kept?', isActive: false } });
    expect(updated).toMatchObject({ name: 'replaced', description: 'kept?', is_active: false });
    // Spec: "Full replacement of editable values: an omitted value is not preserved".
    expect(await client.call('updateProject', { path: { id }, body: { name: 'x', isActive: false } })).toMatchObject({
      name: 'x',
      description: '',
      is_active: false,
    });
    expect(await client.call('updateProject', { path: { id }, body: { name: 'y', description: 'd' } })).toMatchObject({
      name: 'y',
      description: 'd',
      is_active: true,
    });
    // A project cannot be nameless, so the name stays required.
    await expect(client.call('updateProject', { path: { id }, body: { isActive: true } as never })).rejects.toMatchObject({
      status: 400,
      reason: 'Request validation failed',
      details: ['body: missing required member "name"'],
    });
  });

  it('archives and unarchives with conflicts, and lists archived projects only with includeArchived', async () => {
    const id = await newProject('archivable');
    await client.call('archiveProject', { path: { id }, body: { archived: true } });
    await expect(client.call('archiveProject', { path: { id }, body: { archived: true } })).rejects.toMatchObject({
      status: 409,
      reason: 'project_already_archived',
    });
    expect((await client.call('listProjects', {})).map((p) => p.project_id)).not.toContain(id);
    expect((await client.call('listProjects', { query: { includeArchived: true } })).find((p) => p.project_id === id)).toMatchObject({
      archived: true,
    });
    expect(await client.call('getProject', { path: { id } })).toMatchObject({ archived: true, archived_at: expect.any(String) });
    await client.call('archiveProject', { path: { id }, body: { archived: false } });
    await expect(client.call('archiveProject', { path: { id }, body: { archived: false } })).rejects.toMatchObject({
      status: 409,
      reason: 'project_not_archived',
    });
  });

  it('pages with limit and offset in creation order, 50 by default, at most 200', async () => {
    for (let i = 0; i < 55; i++) await newProject(`page-${String(i).padStart(2, '0')}`);
    const all = await client.call('listProjects', { query: { limit: 200 } });
    const first = await client.call('listProjects', {});
    expect(first).toHaveLength(50);
    const second = await client.call('listProjects', { query: { offset: 50, limit: 50 } });
    expect([...first, ...second]).toEqual(all);
    expect(await client.listAll('listProjects', {}, { pageSize: 7 })).toEqual(all);
    await expect(client.call('listProjects', { query: { limit: 201 } })).rejects.toMatchObject({ status: 400 });
    await expect(client.call('listProjects', { query: { offset: -1 } })).rejects.toMatchObject({ status: 400 });
  });
});

describe('records', () => {
  it('creates, then upserts by (project, name) with created:false and a new version', async () => {
    const projectId = await newProject('records');
    const created = await client.call('createRecord', { body: { projectId, name: 'db', tags: ['a'], value: value('v1') } });
    expect(created).toMatchObject({ created: true, version: 1 });
    const upserted = await client.call('createRecord', { body: { projectId, name: 'db', tags: ['b'], value: value('v2') } });
    expect(upserted).toEqual({ record_id: created.record_id, created: false, version: 2 });
    expect((await client.call('getRecord', { path: { id: created.record_id } })).tags).toEqual(['b']);
    await client.call('archiveRecord', { path: { id: created.record_id }, body: { archived: true } });
    await expect(client.call('createRecord', { body: { projectId, name: 'db' } })).rejects.toMatchObject({
      status: 409,
      reason: 'record_archived',
    });
    expect((await client.call('listProjectRecords', { path: { projectId } })).map((r) => r.name)).toEqual([]);
    expect((await client.call('listProjectRecords', { path: { projectId }, query: { includeArchived: true } })).map((r) => r.name)).toEqual(
      ['db'],
    );
  });

  it('keeps only ciphertext and wrappers, with versions for create, version, rotate and rollback, and audits every write', async () => {
    const projectId = await newProject('versions');
    const { record_id: id } = await client.call('createRecord', { body: { projectId, name: 'api-key', value: value('one') } });
    await client.call('createRecordVersion', { path: { id }, body: value('two') });
    await client.call('rotateRecord', { path: { id }, body: value('three') });
    expect(await client.call('rollbackRecord', { path: { id }, body: { version: 1 } })).toEqual({ record_id: id, version: 4 });
    const versions = await client.call('listRecordVersions', { path: { id } });
    expect(versions.map((v) => [v.version, v.reason])).toEqual([
      [1, 'create'],
      [2, 'version'],
      [3, 'rotate'],
      [4, 'rollback to 1'],
    ]);
    const read = await client.call('readRecord', { path: { id }, body: { scope: ['fields'] } });
    expect(read.fields).toEqual({ version: 4, ciphertext: value('one').ciphertext, wrapper: value('one').wrapper });
    await client.call('updateRecord', { path: { id }, body: { rotationIntervalDays: 30 } });
    const trail = await client.call('listRecordAudit', { path: { id }, query: { limit: 200 } });
    expect(trail.map((a) => a.action)).toEqual(['create', 'version', 'rotate', 'rollback', 'read', 'update']);
    expect(trail.every((a) => a.actor_id === fixtures.users[0]!.id && a.actor_type === 'user')).toBe(true);
  });

  it('refuses a rename onto an existing name (409 record_name_exists)', async () => {
    const projectId = await newProject('rename');
    await client.call('createRecord', { body: { projectId, name: 'a' } });
    const { record_id: b } = await client.call('createRecord', { body: { projectId, name: 'b' } });
    await expect(client.call('updateRecord', { path: { id: b }, body: { name: 'a' } })).rejects.toMatchObject({
      status: 409,
      reason: 'record_name_exists',
    });
  });

  it('gives a Service Account the fields only with its grant', async () => {
    const sa = createClient({ baseUrl: emulator().url, token: fixtures.tokens.serviceAccount, accountId: acme, retry: { maxAttempts: 1 } });
    const id = fixtures.records[0]!.id;
    await expect(sa.call('readRecord', { path: { id }, body: { scope: ['fields'] } })).rejects.toMatchObject({
      status: 409,
      reason: 'service_account_grant_not_found',
    });
    const wrappedDek = wrapperFor(await placeOf(client, id), fixtures.serviceAccounts[0]!.id);
    await client.call('grantServiceAccount', { path: { id: fixtures.serviceAccounts[0]!.id }, body: { recordId: id, wrappedDek } });
    const read = await sa.call('readRecord', { path: { id }, body: { scope: ['fields', 'meta'] } });
    expect(read.fields?.wrapper.wrappedDek).toBe(wrappedDek);
    expect(read.meta?.name).toBe('database-password');
    await sa.close();
  });
});

describe('provider credentials', () => {
  it('never returns the secret, and lists revoked credentials only with includeRevoked', async () => {
    const created = await client.call('createCredential', {
      body: { providerId: openai, label: 'secret-test', secret: 'sk-very-secret-value' },
    });
    await client.call('rotateCredential', { path: { id: created.credential_id }, body: { secret: 'sk-another-secret-value' } });
    const all = JSON.stringify([created, await client.call('listCredentials', { query: { includeRevoked: true } })]);
    expect(all).not.toContain('sk-very-secret-value');
    expect(all).not.toContain('sk-another-secret-value');
    const deleted = await client.call('deleteCredential', { path: { id: created.credential_id } });
    expect(deleted.status).toBe('revoked');
    expect((await client.call('listCredentials', {})).map((c) => c.credential_id)).not.toContain(created.credential_id);
    expect((await client.call('listCredentials', { query: { includeRevoked: true } })).map((c) => c.credential_id)).toContain(
      created.credential_id,
    );
    await expect(
      client.call('rotateCredential', { path: { id: created.credential_id }, body: { secret: 'sk-third-secret' } }),
    ).rejects.toMatchObject({ status: 409, reason: 'credential_revoked' });
  });

  it('accepts only https base URLs to public hosts (400 base_url_not_allowed)', async () => {
    const create = (baseUrl: string) =>
      client.call('createCredential', { body: { providerId: openai, label: 'url', baseUrl, secret: 'sk-long-enough' } });
    for (const bad of [
      'http://api.example.com',
      'https://localhost/v1',
      'https://127.0.0.1',
      'https://10.1.2.3',
      'https://192.168.0.1',
      'https://172.16.5.4',
      'https://169.254.169.254',
      'https://[::1]/',
      'https://[fe80::1]/',
      'not a url',
    ]) {
      await expect(create(bad), bad).rejects.toMatchObject({ status: 400, reason: 'base_url_not_allowed' });
    }
    await expect(create('https://llm-proxy.example.com/v1')).resolves.toMatchObject({ base_url: 'https://llm-proxy.example.com/v1' });
  });

  it('rejects a provider secret shorter than 8 characters', async () => {
    await expect(
      client.call('createCredential', { body: { providerId: openai, label: 'short', secret: 'sk-1234' } }),
    ).rejects.toMatchObject({ status: 400, reason: 'provider_key_rejected' });
  });
});
