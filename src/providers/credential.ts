/**
 * Provider credentials: created with their write-only secret, label and base
 * URL changed in place, the secret rotated (not replaced) when its
 * fingerprint changed, deleted when they leave the configuration.
 */
import type { CredentialT } from '../api/shapes.js';
import type { Template } from '../plan-model/index.js';
import { vendors } from './lookups.js';
import { defineKind, LOCAL_NAME } from './define-kind.js';
import type { AttributesOf, EntryOf, Fields } from './field-types.js';
import type { Known } from './types.js';
import { unknownVendor } from './view-diff.js';
import { writeSpec } from './write-spec.js';

/** An AI vendor as its name, whether the configuration gave its name or its id. */
function vendorName(nameOrId: unknown, known: Known): unknown {
  return known.find(vendors, String(nameOrId))?.name ?? nameOrId;
}

const fields = {
  provider: {
    schema: { description: 'Provider name (e.g. openai) or provider id, as listed by GET /providers.', type: 'string', minLength: 1 },
    required: true,
    live: 'provider_id',
    normalize: vendorName,
  },
  label: {
    schema: { description: 'Label of the credential. Defaults to the local name.', type: 'string', minLength: 1, maxLength: 200 },
    default: LOCAL_NAME,
  },
  baseUrl: {
    schema: { description: "Base URL of the provider's API, or null for the provider's default.", type: ['string', 'null'], format: 'uri' },
    default: null,
    live: 'base_url',
  },
  secret: { schema: { description: 'Source of the provider API key.', $ref: '#/$defs/secretSource' }, required: true, writeOnly: true },
} as const satisfies Fields;

/** An entry of this kind in a configuration file. */
export type CredentialConfig = EntryOf<typeof fields>;
export type CredentialAttributes = AttributesOf<typeof fields>;

export const credentialKind = defineKind<CredentialAttributes, CredentialT, CredentialConfig>({
  kind: 'credential',
  description: 'A provider credential: a provider API key stored write-only by the service.',
  fields,
  lifecycle: 'credential',
  config: {
    key: 'credentials',
    noun: 'credential',
    mapDescription: 'Provider credentials by local name; each is addressed as credential.<name>.',
  },
  lookups: [vendors],
  refreshOperations: ['listCredentials'],
  writeOperations: ['createCredential', 'updateCredential', 'rotateCredential', 'deleteCredential'],
  readOperation: 'listCredentials',
  export: {
    name: (live) => live.label,
    // Named among the exported credentials only, so one left out never takes the plain name of one written.
    onlyReferencedWhenNarrowed: true,
    entry({ live, local, vendorName, placeholder, comment }) {
      const secret = placeholder(['CPLANE_SECRET', local], `the API key of credential ${local}`);
      const entry: CredentialConfig = { provider: vendorName(live.provider_id), secret };
      if (live.label !== local) entry.label = live.label;
      if (live.base_url !== null) entry.baseUrl = live.base_url;
      comment('secret', `The API key cannot be exported: set ${secret.env} to it before \`cplane apply\`.`);
      return entry;
    },
    file: {
      description: [
        'Provider credentials. Their API keys cannot be exported: each secret is read from the',
        'environment variable named in it when `cplane apply` creates (or rotates) the credential.',
      ],
    },
  },
  removeAction: 'delete',
  // A credential reaches its vendor's models (GET /providers lists them; GET /provider-credentials/{id}/models once it exists).
  reachesModels: { vendor: (attributes) => attributes.provider },

  async refresh({ client, expected }) {
    return { items: await client.listAll('listCredentials', {}, { expected: expected() }), failures: [] };
  },

  async read({ client, id }) {
    // There is no read by id: the list (which hides revoked credentials) is the read.
    const all = await client.listAll('listCredentials', {});
    return all.find((c) => c.credential_id === id) ?? null;
  },

  identify: ({ live }) => ({ id: live.credential_id, key: live.label, status: live.status === 'revoked' ? 'gone' : 'live' }),
  naturalKey: ({ desired }) => desired.attributes.label,
  diff(_req, derived) {
    const facts = derived();
    const problems = facts.changes.some((c) => c.path === 'provider')
      ? [
          {
            code: 'immutable_vendor',
            summary: 'the provider of a credential cannot be changed',
            detail: 'Add a credential under a new name and point the gateways at it.',
          },
        ]
      : [];
    return { ...facts, rotateKeys: ['secret'], problems };
  },

  planCreate({ desired, known }) {
    const { attributes } = desired;
    const vendor = known.find(vendors, attributes.provider);
    if (!vendor) return { writes: [], problems: [unknownVendor(attributes.provider)] };
    const body: Record<string, Template> = { providerId: vendor.provider_id, label: attributes.label, secret: { $secret: 'secret' } };
    if (attributes.baseUrl !== null) body.baseUrl = attributes.baseUrl;
    return {
      writes: [
        writeSpec('createCredential', { body, effects: { id: { result: 'credential_id' } } }, `create credential ${attributes.label}`),
      ],
    };
  },

  planUpdate({ desired, id, changedKeys }) {
    const { attributes } = desired;
    const writes = [];
    const body: Record<string, Template> = {};
    if (changedKeys.includes('label')) body.label = attributes.label;
    if (changedKeys.includes('baseUrl')) body.baseUrl = attributes.baseUrl;
    if (Object.keys(body).length > 0)
      writes.push(writeSpec('updateCredential', { path: { id }, body }, `update credential ${attributes.label}`));
    if (changedKeys.includes('secret')) {
      writes.push(
        writeSpec(
          'rotateCredential',
          { path: { id }, body: { secret: { $secret: 'secret' } } },
          `rotate the secret of credential ${attributes.label}`,
        ),
      );
    }
    return { writes };
  },

  planDelete({ address, id }) {
    return { writes: [writeSpec('deleteCredential', { path: { id }, effects: { forget: true } }, `delete ${address}`)] };
  },
});
