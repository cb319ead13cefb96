#!/usr/bin/env bash
# The recipe of a new kind, run for real (issue 49: "the recipe in docs/architecture.md is the whole change"):
# on a scratch branch in a temporary worktree, it follows docs/architecture.md, "Adding a kind", and nothing else
# to add a per-project webhook (`projects.<p>.webhooks.<w>`: url, events, a write-only signing secret) with four
# operations and their emulator handlers. Then it runs the tests the recipe names and those that cover every
# kind and operation, the type check and the lint's checks of what it touched, and counts the files the change
# touched: at most 10. The branch and worktree are removed at the end.
#
#   bash scripts/recipes/add-kind.sh               # the whole run (minutes: it builds, type-checks and tests);
#                                                   # prints the files and exits 1 when more than 10 changed or a check fails
#   bash scripts/recipes/add-kind.sh --edits-only  # only the edits of steps 1-4 and the files they touch (seconds):
#                                                   # what test/architecture/add-kind-recipe.test.ts runs
set -euo pipefail
mode=${1:-all}
root=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
edit="node $root/scripts/recipes/edit.mjs"
scratch=$(mktemp -d)
parts=$(mktemp -d)
branch="recipe-kind-$$"
started=$(date +%s)
cleanup() {
  [ -n "${RECIPE_KEEP:-}" ] && { echo "kept: $scratch (branch $branch)"; return; }
  git -C "$root" worktree remove --force "$scratch" >/dev/null 2>&1 || true
  git -C "$root" branch -D "$branch" >/dev/null 2>&1 || true
  rm -rf "$parts" "$scratch"
}
trap cleanup EXIT
git -C "$root" worktree add -q -b "$branch" "$scratch" HEAD
# The root's installed packages, but this worktree's own workspace package (@cplane/sdk), as `npm install` links it.
mkdir -p "$scratch/node_modules/@cplane"
for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
  [ "$(basename "$entry")" = @cplane ] || ln -s "$entry" "$scratch/node_modules/"
done
ln -s ../../packages/sdk "$scratch/node_modules/@cplane/sdk"
[ -d "$root/src/generated" ] && cp -r "$root/src/generated" "$scratch/src/generated"
cd "$scratch"

# 1. The kind: src/providers/webhook.ts.
cat > src/providers/webhook.ts <<'TS'
/**
 * A project's webhook (`projects.P.webhooks.W`, addressed `webhook.P/W`): where the API sends the project's
 * events, which ones, and the secret that signs them. The secret is write-only: a new value of its source
 * rotates it in place, and the webhook is never replaced for it.
 */
import type { ResultOf } from '../api/index.js';
import type { Template } from '../plan-model/index.js';
import { resourceAddress } from '../plan-model/index.js';
import { defineKind, LOCAL_NAME } from './define-kind.js';
import type { AttributesOf, EntryOf, Fields } from './field-types.js';
import type { ReadFailure } from './types.js';
import { isRefusal, nullWhenNotFound, ref, sortedSet } from './view-diff.js';
import { writeSpec } from './write-spec.js';

type LiveWebhook = ResultOf<'createWebhook'>;

const fields = {
  name: {
    schema: { description: 'Webhook name, unique in its project. Defaults to the local name.', type: 'string', minLength: 1, maxLength: 100 },
    default: LOCAL_NAME,
  },
  url: {
    schema: { description: 'Where the events are sent: an https URL.', type: 'string', pattern: '^https://', maxLength: 2000 },
    required: true,
  },
  events: {
    schema: {
      description: 'The events sent, such as record.updated; their order does not matter.',
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 100 },
      minItems: 1,
      maxItems: 50,
    },
    required: true,
    normalize: (events) => sortedSet(events as string[]),
  },
  secret: {
    schema: { description: 'Source of the signing secret, 16 characters or more (write-only).', $ref: '#/$defs/secretSource' },
    required: true,
    writeOnly: true,
  },
} as const satisfies Fields;

/** An entry of this kind in a configuration file. */
export type WebhookConfig = EntryOf<typeof fields>;
type WebhookAttributes = AttributesOf<typeof fields, 'project'>;

const projectOf = (attributes: WebhookAttributes) => resourceAddress('project', attributes.project);

export const webhookKind = defineKind<WebhookAttributes, LiveWebhook, WebhookConfig>({
  kind: 'webhook',
  parent: { kind: 'project', attribute: 'project', idField: 'projectId', removedWith: 'archived with' },
  description: 'A webhook of a project: where its events are sent, signed with a write-only secret.',
  fields,
  lifecycle: 'webhook',
  config: {
    key: 'webhooks',
    noun: 'webhook',
    mapDescription: 'Webhooks of the project by local name; each is addressed as webhook.<project>/<name>.',
  },
  refreshOperations: ['listWebhooks'],
  readOperation: 'listWebhooks',
  writeOperations: ['createWebhook', 'updateWebhook', 'deleteWebhook'],
  removeAction: 'delete',

  async refresh({ client, parentIds, limiter }) {
    const failures: ReadFailure[] = [];
    const lists = await Promise.all(
      parentIds.map((id) =>
        limiter.run(async () => {
          try {
            return await client.call('listWebhooks', { path: { id } });
          } catch (error) {
            if (!isRefusal(error)) throw error;
            if (error.status !== 404)
              failures.push({ operation: 'listWebhooks', reason: `${error.status} ${error.reason}`, requestId: error.requestId, parentId: id });
            return [];
          }
        }),
      ),
    );
    return { items: lists.flat(), failures };
  },

  async read({ client, id, parents }) {
    const projectId = parents?.projectId;
    if (!projectId) return null;
    const webhooks = await nullWhenNotFound(() => client.call('listWebhooks', { path: { id: projectId } }));
    return webhooks?.find((w) => w.webhook_id === id) ?? null;
  },

  identify: ({ live }) => ({
    id: live.webhook_id,
    parents: { projectId: live.project_id },
    key: `${live.project_id}/${live.name}`,
    status: 'live',
  }),

  naturalKey({ desired, known }) {
    const projectId = known.idOf(projectOf(desired.attributes));
    return projectId === undefined ? undefined : `${projectId}/${desired.attributes.name}`;
  },

  diff: (_req, derived) => ({ ...derived(), rotateKeys: ['secret'] }),

  planCreate({ desired, known }) {
    const { attributes } = desired;
    const project = ref(known, projectOf(attributes));
    const body: Record<string, Template> = {
      name: attributes.name,
      url: attributes.url,
      events: attributes.events,
      secret: { $secret: 'secret' },
    };
    const effects = { id: { result: 'webhook_id' }, parents: { projectId: project }, echoes: { project_id: { path: 'id' }, name: { body: 'name' } } };
    return { writes: [writeSpec('createWebhook', { path: { id: project }, body, effects }, `create webhook ${attributes.name}`)] };
  },

  planUpdate({ desired, live, id, changedKeys }) {
    const { attributes } = desired;
    const body: Record<string, Template> = {};
    for (const key of ['name', 'url', 'events'] as const) if (changedKeys.includes(key)) body[key] = attributes[key];
    if (changedKeys.includes('secret')) body.secret = { $secret: 'secret' };
    const path = { id: live.project_id, webhookId: id };
    return { writes: [writeSpec('updateWebhook', { path, body }, `update webhook ${attributes.name}`)] };
  },

  planDelete({ address, id, parents }) {
    const path = { id: parents?.projectId ?? '', webhookId: id };
    return { writes: [writeSpec('deleteWebhook', { path, effects: { forget: true } }, `delete ${address}`)] };
  },
});
TS

# 2. The registry: one import and one line in `definitions` (src/providers/index.ts).
echo "import { webhookKind } from './webhook.js';" > "$parts/import"
$edit after src/providers/index.ts "import { recordOwnerKind } from './record-owner.js';" "$parts/import"
printf '  webhookKind,\n' > "$parts/definition"
$edit before src/providers/index.ts "] as unknown as KindDefinition<never, never>[];" "$parts/definition"

# 3. The operations: one entry each in src/api/operations.ts (its shapes beside them).
cat > "$parts/shapes" <<'TS'
/** A project's webhook, as the webhook operations answer it: the signing secret is write-only. */
const Webhook = Type.Object({
  webhook_id: Id,
  project_id: Id,
  name: Str,
  url: Str,
  events: Type.Array(Str),
  created_at: Str,
  updated_at: Str,
});
const WebhookName = Type.String({ minLength: 1, maxLength: 100 });
const WebhookUrl = Type.String({ minLength: 1, maxLength: 2000, pattern: '^https://' });
const WebhookEvents = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50 });
const WebhookSecret = Type.String({ minLength: 16, maxLength: 500 });

TS
$edit before src/api/operations.ts "export const operations = {" "$parts/shapes"
cat > "$parts/operations" <<'TS'
  // ------------------------------------------------------------ project webhooks
  listWebhooks: {
    summary: 'List the webhooks of a project (never their signing secrets).',
    method: 'GET',
    path: '/projects/{id}/webhooks',
    identity: 'H',
    accountScoped: true,
    permission: 'projects:read',
    notFound: ['project_not_found'],
    result: Type.Array(Webhook),
  },
  createWebhook: {
    summary: 'Add a webhook to a project: where events are sent, which ones, and the secret that signs them.',
    method: 'POST',
    path: '/projects/{id}/webhooks',
    identity: 'H',
    accountScoped: true,
    permission: 'projects:update',
    notFound: ['project_not_found'],
    body: S.Body({ name: WebhookName, url: WebhookUrl, events: WebhookEvents, secret: WebhookSecret }),
    result: Webhook,
  },
  updateWebhook: {
    summary: "Change a webhook's name, URL or events, or rotate its signing secret.",
    method: 'PATCH',
    path: '/projects/{id}/webhooks/{webhookId}',
    identity: 'H',
    accountScoped: true,
    permission: 'projects:update',
    notFound: ['project_not_found', 'webhook_not_found'],
    body: S.Body({ name: Opt(WebhookName), url: Opt(WebhookUrl), events: Opt(WebhookEvents), secret: Opt(WebhookSecret) }),
    result: Webhook,
  },
  deleteWebhook: {
    summary: 'Delete a webhook of a project.',
    method: 'DELETE',
    path: '/projects/{id}/webhooks/{webhookId}',
    identity: 'H',
    accountScoped: true,
    permission: 'projects:update',
    notFound: ['project_not_found', 'webhook_not_found'],
  },
TS
$edit before src/api/operations.ts "} as const satisfies Record<string, OperationSpec>;" "$parts/operations"

# 4. The emulator: a handler each, in the handlers of the area the operations belong to (a project's).
cat > "$parts/handler-helpers" <<'TS'

/** A project's webhook as the emulator keeps it: the signing secret only as its fingerprint. */
type WebhookRow = ResultOf<'createWebhook'> & { account_id: string; secret_fingerprint: string };
const webhooksOf = (db: Db) => tableOf<WebhookRow>(db, 'webhooks');
const webhookView = (row: WebhookRow) => omit(row, 'account_id', 'secret_fingerprint');

function findWebhook(db: Db, accountId: string, projectId: string, webhookId: string): WebhookRow {
  const project = owned(db.projects, 'project_id', projectId, accountId, 'project_not_found');
  const webhook = webhooksOf(db).find((w) => w.webhook_id === webhookId && w.project_id === project.project_id);
  if (!webhook) throw notFound('webhook_not_found');
  return webhook;
}
TS
$edit before src/emulator/handlers/projects.ts "export const projectHandlers = {" "$parts/handler-helpers"
cat > "$parts/handlers" <<'TS'

  listWebhooks: ({ db, accountId, params }) => {
    const project = owned(db.projects, 'project_id', params.id!, accountId, 'project_not_found');
    return webhooksOf(db)
      .filter((w) => w.project_id === project.project_id)
      .map(webhookView);
  },

  createWebhook: ({ db, accountId, params, body, now }) => {
    const project = owned(db.projects, 'project_id', params.id!, accountId, 'project_not_found');
    if (webhooksOf(db).some((w) => w.project_id === project.project_id && w.name === body.name)) throw conflict('webhook_name_exists');
    const at = now.toISOString();
    const row: WebhookRow = {
      webhook_id: newId(),
      project_id: project.project_id,
      name: body.name,
      url: body.url,
      events: [...body.events],
      created_at: at,
      updated_at: at,
      account_id: accountId,
      secret_fingerprint: fingerprint(body.secret),
    };
    webhooksOf(db).push(row);
    return webhookView(row);
  },

  updateWebhook: ({ db, accountId, params, body, now }) => {
    const webhook = findWebhook(db, accountId, params.id!, params.webhookId!);
    const taken = (name: string) => webhooksOf(db).some((w) => w !== webhook && w.project_id === webhook.project_id && w.name === name);
    if (body.name !== undefined && taken(body.name)) throw conflict('webhook_name_exists');
    Object.assign(webhook, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.events !== undefined ? { events: [...body.events] } : {}),
      ...(body.secret !== undefined ? { secret_fingerprint: fingerprint(body.secret) } : {}),
      updated_at: now.toISOString(),
    });
    return webhookView(webhook);
  },

  deleteWebhook: ({ db, accountId, params }) => {
    const webhook = findWebhook(db, accountId, params.id!, params.webhookId!);
    webhooksOf(db).splice(webhooksOf(db).indexOf(webhook), 1);
    return undefined;
  },
TS
$edit before src/emulator/handlers/projects.ts "} satisfies Partial<Handlers>;" "$parts/handlers"
$edit import src/emulator/handlers/projects.ts ../handler-call.js newId omit owned tableOf
$edit import src/emulator/handlers/projects.ts ../errors.js conflict notFound
$edit import src/emulator/handlers/projects.ts ../defaults.js fingerprint
$edit import src/emulator/handlers/projects.ts ../../api/operations.js 'type ResultOf'
$edit import src/emulator/handlers/projects.ts ../store.js 'type Db'

# 5. Its tests: test/kinds/webhook.ts, its conformance case and an example of each operation.
cat > test/kinds/webhook.ts <<'TS'
// webhook's cases (test/helpers/kind-cases.ts): its conformance case, and an example of each of its operations.
import { fixtures } from '../../src/emulator/fixtures.js';
import type { KindCases } from '../helpers/kind-cases.js';

const acme = fixtures.accounts[0]!.id;
const missing = '99999999-9999-4999-8999-999999999999';

/** A project with one webhook, its URL, events and secret source as given. */
const hooked = (url: string, events: string, secret = 'OPENAI_KEY') => `projects:
  app:
    webhooks:
      deploys:
        url: ${url}
        events: ${events}
        secret: { env: ${secret} }
`;

export const cases: KindCases = {
  kind: 'webhook',
  conformance: {
    address: 'webhook.app/deploys',
    create: hooked('https://hooks.example.com/a', '[record.updated]'),
    changes: [
      { config: hooked('https://hooks.example.com/b', '[record.updated, record.archived]') },
      // Another secret: rotated in place, the webhook kept.
      { config: hooked('https://hooks.example.com/b', '[record.archived, record.updated]', 'OPENAI_KEY_2'), action: 'rotate' },
    ],
    remove: 'projects:\n  app: {}\n',
  },
  async arrange(admin, ids) {
    const project = (await admin.call('createProject', { body: { accountId: acme, name: 'webhook-cases', description: '' } })).project_id;
    const webhook = async (name: string) =>
      (
        await admin.call('createWebhook', {
          path: { id: project },
          body: { name, url: 'https://hooks.example.com/x', events: ['record.updated'], secret: 'whsec-arranged-0123456789' },
        })
      ).webhook_id;
    ids.webhookProject = project;
    ids.webhookToUpdate = await webhook('to-update');
    ids.webhookToDelete = await webhook('to-delete');
  },
  operations: {
    listWebhooks: {
      call: (ids) => ({ params: { id: ids.webhookProject! } }),
      failure: { call: () => ({ params: { id: missing } }), expect: [404, 'project_not_found'] },
    },
    createWebhook: {
      call: (ids) => ({
        params: { id: ids.webhookProject! },
        body: { name: 'made', url: 'https://hooks.example.com/made', events: ['record.updated'], secret: 'whsec-made-0123456789' },
      }),
      failure: {
        call: (ids) => ({
          params: { id: ids.webhookProject! },
          body: { name: 'to-update', url: 'https://hooks.example.com/y', events: ['record.updated'], secret: 'whsec-taken-0123456789' },
        }),
        expect: [409, 'webhook_name_exists'],
      },
    },
    updateWebhook: {
      call: (ids) => ({ params: { id: ids.webhookProject!, webhookId: ids.webhookToUpdate! }, body: { events: ['record.archived'] } }),
      failure: { call: (ids) => ({ params: { id: ids.webhookProject!, webhookId: missing }, body: {} }), expect: [404, 'webhook_not_found'] },
    },
    deleteWebhook: {
      call: (ids) => ({ params: { id: ids.webhookProject!, webhookId: ids.webhookToDelete! } }),
      failure: { call: (ids) => ({ params: { id: ids.webhookProject!, webhookId: ids.webhookToDelete! } }), expect: [404, 'webhook_not_found'] },
    },
  },
};
TS

# 6. Its section of keys in docs/configuration.md, after the last kind's.
cat > "$parts/docs" <<'MD'
### Webhook (`projects.<p>.webhooks.<w>`)

```yaml
projects:
  payments:
    webhooks:
      deploys:
        url: https://hooks.example.com/cplane
        events: [record.updated, record.archived]
        secret: { env: DEPLOYS_WEBHOOK_SECRET }
```

| Key | Type | Default | Meaning |
|---|---|---|---|
| `name` | string (1..100) | the local name | Webhook name, unique in its project. |
| `url` | https URL, **required** | | Where the events are sent. |
| `events` | list of strings (1..50), **required** | | The events sent; their order does not matter. |
| `secret` | secret source, **required** | | The signing secret (16 characters or more), write-only: a new value rotates it in place (`~ rotate`), the webhook is kept. |
| `lifecycle`, `dependsOn` | | | `ignoreChanges` fields: `name`, `url`, `events`, `secret`. |

Addressed `webhook.<project>/<name>`. cplane reads a project's webhooks back (never their secrets) and deletes one
that leaves the configuration. It is not exported: export cannot read the secret.

MD
$edit before docs/configuration.md $'## Grants\n' "$parts/docs"

changed() { git status --porcelain --untracked-files=all -- . ':!node_modules' ':!src/generated' ':!dist'; }
if [ "$mode" = --edits-only ]; then
  changed
  exit 0
fi

# 3 (continued). `npm run schemas`: schema/*.json, their validators, the docs' tables, src/api/routes.ts (after the
# SDK's build, which the registry imports); `npm run format` of what changed; `npm run build`, the CLI the tests start.
step() { "$@" >"$parts/step.log" 2>&1 || { tail -40 "$parts/step.log"; echo "failed: $*"; exit 1; }; }
step npm run build -w @cplane/sdk
step npm run schemas
changed | awk '{print $2}' | xargs npx prettier --write --log-level warn
step npm run build

# 7. The checks: the kind's tests and those over every kind and operation, the type check, the lint.
npx vitest run test/architecture test/providers test/emulator/every-operation.test.ts test/faces test/config test/export >"$parts/tests.log" 2>&1 ||
  { tail -60 "$parts/tests.log"; echo "the tests failed"; exit 1; }
npm run --silent typecheck >/dev/null 2>&1 || { npx tsc --noEmit -p . | head -30; echo "the type check failed"; exit 1; }
changed | awk '{print $2}' | xargs npx prettier --check --log-level warn
changed | awk '{print $2}' | grep -E '\.(ts|mjs)$' | xargs npx eslint
node scripts/import-cycles.mjs >/dev/null
node scripts/kind-names.mjs
node scripts/docs-tables.mjs

files=$(changed)
echo "$files"
count=$(printf '%s\n' "$files" | grep -c .)
echo "files changed: $count (at most 10), in $(($(date +%s) - started)) s"
[ "$count" -le 10 ]
