// The one reader of the account (src/account/): a plan and the access report read through it, each with its
// profile, and see the same live objects; the profiles differ only in what they read and what a refusal does.
import { describe, expect, it } from 'vitest';
import { readAccess } from '../../src/access/index.js';
import { accessProfile, planProfile, readAccount } from '../../src/account/index.js';
import { createClient } from '../../src/api/index.js';
import { IdentityRefusedError } from '../../src/api/errors.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { gatewayTokenKind, kindOrder, projectKind, recordKind, serviceAccounts, type DataSource } from '../../src/providers/index.js';
import { startRefreshing } from '../../src/planner/stages/refresh.js';
import { AbortError } from '../../src/errors.js';
import { lyingProxy, withStatus } from '../helpers/lying-proxy.js';
import { account, eachTestHarness, fullConfig } from '../planner/harness.js';
import { readAccount as readExported } from '../../src/export/index.js';

const idsOf = (items: readonly unknown[] | undefined) =>
  (items ?? [])
    .map(
      (r) =>
        (r as { record_id?: string; service_account_id?: string }).record_id ?? (r as { service_account_id: string }).service_account_id,
    )
    .sort();

describe('export reads through it', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });

  it("reads a gateway's tokens and OTel export only when it keeps the gateway's project", async () => {
    await h().client.call('createProject', { body: { accountId: account, name: 'other', description: '' } });
    const sentFor = async (projectNames: string[]) => {
      h().emulator.resetStats();
      const objects = await readExported({ client: h().client, account, projectNames, parallelism: 4 });
      const { byOperation } = h().emulator.stats();
      return {
        tokens: byOperation.listGatewayTokens ?? 0,
        otel: byOperation.getOtelExport ?? 0,
        kept: objects.objects[gatewayTokenKind.kind]?.length ?? 0,
      };
    };
    const all = await sentFor([]);
    expect(all.tokens).toBeGreaterThan(0);
    expect(all.otel).toBe(all.tokens);
    expect(await sentFor(['other'])).toEqual({ tokens: 0, otel: 0, kept: 0 });
  });

  it("stops when a gateway's tokens may not be read, naming the gateway, rather than leave them out", async () => {
    const refused = { ok: false, error: { code: 'forbidden', message: 'missing_permission' }, requestId: 'req-refused' };
    const proxy = await lyingProxy(h().emulator.url, (request) =>
      /^\/v1\/gateways\/[^/]+\/tokens$/.test(request.path) ? withStatus(403, refused) : undefined,
    );
    const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.admin, accountId: account });
    try {
      const reading = readExported({ client, account, projectNames: [], parallelism: 4 });
      await expect(reading).rejects.toBeInstanceOf(AbortError);
      await expect(reading).rejects.toThrow(
        new RegExp(
          `^Could not read listGatewayTokens of gateway [0-9a-f-]+: 403 missing_permission \\(request id req-refused\\)(, and \\d+ more read\\(s\\) failed)?\\. Nothing was written\\.$`,
        ),
      );
    } finally {
      await Promise.all([client.close(), proxy.close()]);
    }
  });
});

describe('a plan reads each kind in full while the others are in flight', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });

  it("says a kind is read once its lists are, while a gateway's tokens are still being read; the whole read ends after them", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const proxy = await lyingProxy(h().emulator.url, async (request) => {
      if (/^\/v1\/gateways\/[^/]+\/tokens$/.test(request.path)) await held;
      return undefined;
    });
    const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.admin, accountId: account });
    try {
      const reading = startRefreshing({ client, account, desired: await h().desired(), state: h().state.data, parallelism: 4 });
      let done = false;
      let tokensRead = false;
      void reading.done.then(() => (done = true));
      void reading.settled([gatewayTokenKind.kind]).then(() => (tokensRead = true));
      // The records and their projects are read in full while the tokens' answer is held: the planner plans them now.
      await reading.settled([recordKind.kind, projectKind.kind]);
      expect(reading.read.items[recordKind.kind]).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'stripe-key' })]));
      expect({ tokensRead, done }).toEqual({ tokensRead: false, done: false });
      release();
      await reading.settled([gatewayTokenKind.kind]);
      expect(reading.read.items[gatewayTokenKind.kind]).toHaveLength(1);
      expect((await reading.done).items[gatewayTokenKind.kind]).toHaveLength(1);
    } finally {
      release();
      await Promise.all([client.close(), proxy.close()]);
    }
  });

  it('a read that fails ends the whole read with its error, and a kind waited for is said read rather than left waiting', async () => {
    const proxy = await lyingProxy(h().emulator.url, (request) =>
      /^\/v1\/gateways\/[^/]+\/tokens$/.test(request.path)
        ? withStatus(400, { ok: false, error: { code: 'bad_request', message: 'broken' }, requestId: 'req-broken' })
        : undefined,
    );
    const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.admin, accountId: account });
    try {
      const reading = startRefreshing({ client, account, desired: await h().desired(), state: h().state.data, parallelism: 4 });
      await expect(reading.done).rejects.toMatchObject({ status: 400, requestId: 'req-broken' });
      await expect(reading.settled([gatewayTokenKind.kind])).resolves.toBeUndefined();
    } finally {
      await Promise.all([client.close(), proxy.close()]);
    }
  });
});

describe('one reader of the account', () => {
  const h = eachTestHarness();

  it('a plan and the access report see the same records, archived included, and the same Service Accounts, read the same way', async () => {
    h().config('projects:\n  b:\n    records:\n      live: { grants: { serviceAccounts: [deployer] } }\n      old: {}\n');
    const { project_id: projectId } = await h().client.call('createProject', { body: { accountId: account, name: 'b', description: '' } });
    const [live, old] = await Promise.all(['live', 'old'].map((name) => h().client.call('createRecord', { body: { projectId, name } })));
    await h().client.call('archiveRecord', { path: { id: old!.record_id }, body: { archived: true } });

    // Each reads through a proxy that records the requests as the server receives them, query included.
    let sent: string[] = [];
    const proxy = await lyingProxy(h().emulator.url, (request) => void sent.push(`${request.method} ${request.path}${request.query}`));
    const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.admin, accountId: account });
    const [snapshot, planSent] = await startRefreshing({
      client,
      account,
      desired: await h().desired(),
      state: h().state.data,
      parallelism: 4,
    }).done.then((r) => [r, sent] as const);
    sent = [];
    const reads = await readAccess(client, account).finally(() => Promise.all([client.close(), proxy.close()]));
    const accessSent = sent;

    expect(idsOf(reads.records)).toEqual(idsOf(snapshot.items[recordKind.kind]));
    expect(idsOf(reads.records)).toEqual(expect.arrayContaining([live!.record_id, old!.record_id]));
    expect(reads.records.find((r) => r.record_id === old!.record_id)?.archived).toBe(true);
    const planAccounts = snapshot.lookups.get(serviceAccounts as DataSource<unknown>);
    expect(planAccounts).toBeDefined();
    expect(idsOf(reads.serviceAccounts)).toEqual(idsOf(planAccounts));
    // The same requests for what both read: the records list and the Service Accounts, with the same query.
    const shared = (requests: readonly string[]) => requests.filter((r) => /^GET \/v1\/(records|service-accounts)(\?|$)/.test(r)).sort();
    expect(shared(accessSent)).toHaveLength(2);
    expect(shared(accessSent)).toEqual(shared(planSent));
  });

  it('the access report reads each list once: records, projects, Service Accounts and the feed', async () => {
    h().emulator.resetStats();
    await readAccess(h().client, account);
    const sent = Object.fromEntries(Object.entries(h().emulator.stats().byOperation).filter(([, n]) => n > 0));
    expect(sent).toEqual({ listRecords: 1, listProjects: 1, listServiceAccounts: 1, listRecordAccess: 1 });
  });

  it('with a Service Account token a plan notes the projects it may not list, the access report stops, and neither sends the request', async () => {
    const client = createClient({ baseUrl: h().emulator.url, token: fixtures.tokens.serviceAccount, accountId: fixtures.accounts[0]!.id });
    try {
      h().emulator.resetStats();
      const state = { ...h().state.data, resources: {} };
      const desired = { ...(await (h().config('projects:\n  b: {}\n'), h().desired())) };
      const planned = await readAccount(client, {
        account: fixtures.accounts[0]!.id,
        parallelism: 2,
        profile: planProfile({
          account: fixtures.accounts[0]!.id,
          desired,
          state,
          clocks: () => ({ api: new Date(), forEnds: new Date() }),
        }),
      });
      expect(planned.unreadable).toEqual([expect.objectContaining({ kind: projectKind.kind, operation: 'listProjects' })]);
      expect(planned.items[projectKind.kind]).toBeUndefined();

      const profile = accessProfile([recordKind.kind, projectKind.kind]);
      await expect(readAccount(client, { account: fixtures.accounts[0]!.id, parallelism: 2, profile })).rejects.toBeInstanceOf(
        IdentityRefusedError,
      );
      expect(h().emulator.stats().byOperation.listProjects ?? 0).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('a plan reads only the kinds its configuration or state has; the access report only the kinds it is given', () => {
    const state = { ...h().state.data, resources: {} };
    const desired = { resources: [{ kind: projectKind.kind }], directory: undefined } as never;
    expect(planProfile({ account, desired, state, clocks: () => ({ api: new Date(), forEnds: new Date() }) }).kinds).toEqual([
      projectKind.kind,
    ]);
    expect(accessProfile([recordKind.kind, projectKind.kind]).kinds).toEqual(
      kindOrder.filter((k) => k === recordKind.kind || k === projectKind.kind),
    );
    expect([...accessProfile([]).lookups.keys()]).toEqual([serviceAccounts]);
  });
});
