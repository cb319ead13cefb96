/**
 * `cplane reader-manifest SERVICE_ACCOUNT [dir] [--all | --deployment NAME] [--out FILE]`: the public file an
 * application reads its secrets by name with (@cplane/sdk: packages/sdk/src/manifest.ts). Per deployment: the
 * API's base URL, the account, the Service Account's id, the writer key, and each record the configuration grants
 * the Service Account and the state says was applied, by its `project/record` name with its record id (a record a
 * gateway token is delivered to says which token). It is built from the configuration and the state only (the
 * state's entries authenticated by their MACs under the state key), never from what the API lists: a server cannot
 * put a name in it nor point one at another record. It holds no secret.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MANIFEST_VERSION, type ManifestDeployment, type ManifestRecord, type ReaderManifest } from '@cplane/sdk';
import type { DesiredState } from '../../config/index.js';
import { resourceAddress } from '../../plan-model/index.js';
import { accessKinds, definitionOf, valueKind } from '../../providers/index.js';
import type { StateStore } from '../../state/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { connectionSettings } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { openWorkspace } from '../../session/workspace.js';
import { chooseDeployments, deploymentContext, wantsDeployments } from '../deployments/choose.js';
import { jsonText } from '../../text/json-text.js';

const usage = 'reader-manifest SERVICE_ACCOUNT [dir] [--all | --deployment NAME ...] [--out FILE]';
/** The deployment name of a configuration without `deployments:`. */
export const SINGLE_DEPLOYMENT = 'default';

/** One deployment of the manifest, from its configuration and state. */
export async function manifestDeploymentOf(
  desired: DesiredState,
  state: StateStore,
  serviceAccount: string,
  baseUrl: string,
): Promise<ManifestDeployment> {
  // The kind that gives a Service Account access to a record, and the resources whose one-time secret is delivered to one.
  const granting = accessKinds.find((a) => a.principal === 'service_account' && a.on === valueKind)!;
  const grants = desired.resources.filter(
    (r) => r.kind === granting.kind && (r.attributes as Record<string, unknown>)[granting.attribute] === serviceAccount,
  );
  const delivered = new Map(
    desired.resources.flatMap((r) => {
      const delivery = definitionOf(r.kind).config.delivery?.(r.attributes as never);
      return delivery?.kind === valueKind ? [[delivery.localName, r.address] as const] : [];
    }),
  );
  const records: Record<string, ManifestRecord> = {};
  const serviceAccountIds = new Set<string>();
  for (const grant of grants) {
    const name = (grant.attributes as { record: string }).record;
    // Declared and applied: the grant's entry (`RECORD_ID/READER_ID`) and the record's, both authenticated.
    const applied = state.data.resources[grant.address];
    const record = state.data.resources[resourceAddress(valueKind, name)];
    if (!applied || !record) continue;
    const [recordId, readerId] = applied.id.split('/');
    if (recordId !== record.id || !readerId) continue;
    serviceAccountIds.add(readerId);
    const token = delivered.get(name);
    records[name] = { recordId: record.id, ...(token ? { deliveredToken: token } : {}) };
  }
  const { publicKey, keyId } = await state.crypto.writerKey();
  const [serviceAccountId] = serviceAccountIds;
  return {
    baseUrl,
    accountId: state.data.account,
    ...(serviceAccountIds.size === 1 ? { serviceAccountId: serviceAccountId! } : {}),
    writerKeys: [{ publicKey, keyId }],
    records: Object.fromEntries(Object.entries(records).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** A view of `ctx` with other positionals (a prototype, so the lazy stdin is not touched). */
const withPositionals = (ctx: CommandContext, positionals: string[]): CommandContext =>
  Object.assign(Object.create(ctx) as CommandContext, { positionals });

export const readerManifestCommand: CommandModule = {
  async run(ctx) {
    const [serviceAccount, dir, ...extra] = ctx.positionals;
    if (!serviceAccount)
      throw new AbortError(
        'Say which Service Account the manifest is for: its name, as grants.serviceAccounts lists it.',
        `Usage: cplane ${usage}`,
      );
    if (extra.length > 0) throw new AbortError(`Unexpected arguments: ${extra.join(' ')}.`, `Usage: cplane ${usage}`);
    const folder = withPositionals(ctx, dir === undefined ? [] : [dir]);
    const runs = wantsDeployments(ctx)
      ? (await chooseDeployments(folder, 'reader-manifest')).chosen.map((d) => ({
          name: d.name,
          ctx: deploymentContext(folder, d, { capture: false }).ctx,
        }))
      : [{ name: SINGLE_DEPLOYMENT, ctx: folder }];
    const manifest: ReaderManifest = { version: MANIFEST_VERSION, serviceAccount, deployments: {} };
    for (const run of runs) {
      const workspace = await openWorkspace(run.ctx, { lock: false, command: 'cplane reader-manifest' });
      try {
        // Each deployment's own API address, as its commands use it.
        const deployment = await manifestDeploymentOf(
          workspace.desired,
          workspace.state,
          serviceAccount,
          connectionSettings(run.ctx).baseUrl,
        );
        if (Object.keys(deployment.records).length === 0) {
          throw new AbortError(
            `Service Account ${serviceAccount} may read no record in ${run.name === SINGLE_DEPLOYMENT ? `account ${workspace.account}` : `deployment ${run.name}`}: the configuration grants it none, or they are not applied yet.`,
            `Grant records to it (grants.serviceAccounts: [${serviceAccount}]) and run \`cplane apply\` first.`,
          );
        }
        manifest.deployments[run.name] = deployment;
      } finally {
        await workspace.close();
      }
    }
    const text = `${jsonText(manifest, 2)}\n`;
    const out = typeof ctx.values.out === 'string' ? resolve(ctx.cwd, ctx.values.out) : undefined;
    if (out) {
      // `--out deploy/reader.json` into a folder not made yet: made, as the application's tree expects it there.
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, text);
    } else ctx.stdout.write(text);
    const counts = Object.entries(manifest.deployments).map(([name, d]) => `${name}: ${Object.keys(d.records).length} record(s)`);
    ctx.stderr.write(
      `Reader manifest of ${serviceAccount}${out ? ` written to ${out}` : ''} (${counts.join(', ')}). It holds no secret: commit it with the application, which reads with it and CPLANE_READER.\n`,
    );
    return 0;
  },
};
