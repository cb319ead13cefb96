/**
 * Models that exist: the model names a configuration gives (a gateway's `defaultModel`, a token's
 * `allowedModels`, as their kinds' `models` facts say) are checked against the models the credentials they reach
 * serve. What a credential serves is read once per plan: `GET /provider-credentials/{id}/models` for a credential
 * that exists (human-only), else its vendor's list from `GET /providers` (read by refresh anyway). Only what the
 * plan may change is checked (created, or its model names or credentials differ from what was last applied):
 * an unchanged object costs no request. A model no reached credential serves is a plan problem at the field,
 * with the closest names as suggestions; when nothing could be read, nothing is claimed.
 */
import type { ApiClient } from '../../api/client.js';
import { Limiter } from '../../api/limiter.js';
import { routes } from '../../api/routes.js';
import { didYouMean } from '../../config/index.js';
import type { DesiredResource, ResourceKind } from '../../config/types.js';
import { resourceAddress } from '../../plan-model/index.js';
import { parentOf, definitionOf, vendors } from '../../providers/index.js';
import type { Known } from '../../providers/types.js';
import { sameValue } from '../../providers/view-diff.js';
import type { StateData } from '../../state/types.js';
import { resourceProblem, type PlanProblem } from '../problems.js';

interface ModelCheck {
  resource: DesiredResource;
  named: { field: string; models: readonly string[] }[];
  /** Addresses of the credentials it reaches. */
  credentials: string[];
}

const attributesOf = (r: DesiredResource) => r.attributes as unknown as Record<string, unknown>;

/** The credential addresses a resource with `through` reaches (its reference rule names their kind). */
function reached(r: DesiredResource): string[] {
  const through = definitionOf(r.kind).models?.through;
  if (!through) return [];
  const rule = (definitionOf(r.kind).config.references ?? []).find((ref) => ref.attribute === through && 'kind' in ref) as
    { kind: ResourceKind } | undefined;
  const names = attributesOf(r)[through];
  return rule && Array.isArray(names) ? names.map((name) => resourceAddress(rule.kind, String(name))) : [];
}

/** Whether the plan may change what the resource's model names are checked against. */
function changed(r: DesiredResource, state: StateData['resources'], fields: readonly string[]): boolean {
  const applied = state[r.address]?.inputs;
  return !applied || fields.some((field) => !sameValue(applied[field], attributesOf(r)[field]));
}

/** The checks a plan needs: cheap, from configuration and state only (it runs before anything is read). */
export function modelChecks(
  desired: readonly DesiredResource[],
  byAddress: ReadonlyMap<string, DesiredResource>,
  state: StateData['resources'],
): ModelCheck[] {
  const checks: ModelCheck[] = [];
  for (const r of desired) {
    const facts = definitionOf(r.kind).models;
    if (!facts) continue;
    const named = facts.named(r.attributes as never).filter((n) => n.models.length > 0);
    if (named.length === 0) continue;
    // A kind without credentials of its own reaches its parent's (a token, its gateway's).
    const parent = parentOf(r.kind);
    const holder = facts.through
      ? r
      : parent
        ? byAddress.get(resourceAddress(parent.kind, String(attributesOf(r)[parent.attribute])))
        : undefined;
    const through = holder && definitionOf(holder.kind).models?.through;
    if (!holder || !through) continue;
    const mine = changed(
      r,
      state,
      named.map((n) => n.field),
    );
    if (!mine && !changed(holder, state, [through])) continue;
    checks.push({ resource: r, named, credentials: reached(holder) });
  }
  return checks;
}

/** What each credential serves; undefined when it could not be told. */
async function servedModels(
  client: ApiClient,
  known: Known,
  credentials: readonly string[],
  byAddress: ReadonlyMap<string, DesiredResource>,
  parallelism: number,
): Promise<Map<string, readonly string[] | undefined>> {
  const out = new Map<string, readonly string[] | undefined>();
  const limiter = new Limiter(Math.max(1, parallelism));
  const humanOnly = client.identity === 'service_account' && routes.listCredentialModels.identity === 'H';
  await Promise.all(
    credentials.map((address) =>
      limiter.run(async () => {
        const r = byAddress.get(address);
        const vendor = r && definitionOf(r.kind).reachesModels?.vendor(r.attributes as never);
        const fromVendor = vendor === undefined ? undefined : known.find(vendors, vendor)?.models;
        const id = known.idOf(address);
        if (id === undefined || humanOnly) return void out.set(address, fromVendor);
        try {
          out.set(
            address,
            (await client.call('listCredentialModels', { path: { id } })).map((m) => m.model_id),
          );
        } catch {
          // Refused, revoked or unreachable: the vendor's list says what the credential would serve.
          out.set(address, fromVendor);
        }
      }),
    ),
  );
  return out;
}

export async function checkModels(
  checks: readonly ModelCheck[],
  client: ApiClient,
  known: Known,
  byAddress: ReadonlyMap<string, DesiredResource>,
  parallelism: number,
): Promise<PlanProblem[]> {
  if (checks.length === 0) return [];
  const credentials = [...new Set(checks.flatMap((c) => c.credentials))].sort();
  const served = await servedModels(client, known, credentials, byAddress, parallelism);
  const problems: PlanProblem[] = [];
  for (const check of checks) {
    const lists = check.credentials.map((c) => served.get(c));
    // One credential whose models are unknown could serve anything: claim nothing.
    if (lists.length === 0 || lists.some((l) => l === undefined)) continue;
    const known = new Set(lists.flatMap((l) => l!));
    for (const { field, models } of check.named) {
      for (const model of models) {
        if (known.has(model)) continue;
        const names = check.credentials.map((c) => byAddress.get(c)?.localName ?? c).join(', ');
        problems.push(
          resourceProblem(check.resource, {
            code: 'unknown_model',
            field,
            summary: `${field}: no attached credential serves the model "${model}"${didYouMean(model, known)}`,
            detail: `The credentials ${names} serve: ${[...known].sort().join(', ')}. Use one of these, or attach a credential of a provider that serves "${model}".`,
          }),
        );
      }
    }
  }
  return problems;
}
