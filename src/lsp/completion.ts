/**
 * Completion: at a place that takes a name, the names of that space declared in the configuration (a gateway's
 * project and credentials, a record's `grants`, a group's `members`, `dependsOn` addresses, variables in
 * `${var.`, a module call's inputs); in a policy's rule or a deployment's `autoApprove`, the CEL variables; on a
 * key, the keys the schema allows there, with their descriptions.
 */
import { dirname, relative } from 'node:path';
import type { JsonSchema, KindBlock } from '../config/index.js';
import { resourceAddress } from '../plan-model/index.js';
import { AUTO_APPROVE_FIELDS, RULE_VARIABLES } from '../policy/index.js';
import { cursorAt } from './cursor.js';
import type { Occurrence, Space } from './file-names.js';
import type { NamesIndex } from './names-index.js';
import { propertiesAt } from './schema-at.js';

export interface Suggestion {
  label: string;
  /** What it is: a name, a variable, a key of the schema, a CEL variable. */
  what: 'name' | 'variable' | 'key' | 'cel';
  detail?: string;
  documentation?: string;
  /** The text it replaces: from here to the cursor. */
  replaceFrom: number;
}

/** What a value at `path` names: a space of names, every address, CEL variables, or a model. */
export type Slot = Space | 'address' | 'policy-rule' | 'auto-approve' | 'model';

/** The fields that name a model of a gateway's credentials: its own default, and what its tokens may use. */
const MODEL_FIELDS = ['defaultModel', 'allowedModels'];

export function slotAt(path: readonly string[], kinds: readonly KindBlock[]): Slot | undefined {
  const [top, second, third, fourth] = path;
  if (top === 'directory' && second === 'groups' && fourth === 'members') return 'directory:users';
  if (top === 'policies' && path.at(-1) === 'rule') return 'policy-rule';
  if (top === 'deployments' && path.at(-1) === 'autoApprove') return 'auto-approve';
  if ((top === 'import' || top === 'moved' || top === 'removed') && (second === 'to' || second === 'from')) return 'address';
  let block = kinds.find((b) => !b.parent && b.key === top);
  if (!block || third === undefined) return undefined;
  let i = 2;
  while (block && i < path.length) {
    const key = path[i]!;
    if (key === 'dependsOn') return 'address';
    const listed = kinds.find((b) => b.parent?.kind === block!.kind && b.list && b.key === `${key}.${path[i + 1]}`);
    if (listed) {
      const rule = listed.references?.find((r) => 'directory' in r);
      return rule && 'directory' in rule ? `directory:${rule.directory}` : 'directory:serviceAccounts';
    }
    const child = kinds.find((b) => b.parent?.kind === block!.kind && !b.list && b.key === key);
    if (child) {
      block = child;
      i += child.single ? 1 : 2;
      continue;
    }
    if (i !== path.length - 1) return undefined;
    if (MODEL_FIELDS.includes(key)) return 'model';
    const rule = block.references?.find((r) => r.attribute === key);
    if (!rule) return undefined;
    return 'kind' in rule ? `resource:${rule.kind}` : `directory:${rule.directory}`;
  }
  return undefined;
}

const where = (o: Occurrence, root: string) => `${relative(root, o.path)}`;

export function complete(
  index: NamesIndex,
  kinds: readonly KindBlock[],
  schema: JsonSchema,
  path: string,
  text: string,
  offset: number,
): Suggestion[] {
  const cursor = cursorAt(text, offset);
  const scope = dirname(path);
  const replaceFrom = cursor.prefixStart;
  const names = (space: Space): Suggestion[] => {
    const seen = new Set<string>();
    return index
      .declared(scope, space)
      .filter((o) => !seen.has(o.name) && seen.add(o.name))
      .map((o) => ({ label: o.name, what: 'name', detail: `${space.replace(/^[a-z]+:/, '')} (${where(o, index.root)})`, replaceFrom }));
  };
  if (cursor.variable) return names('variable').map((s) => ({ ...s, what: 'variable' }));
  if (cursor.part === 'key') {
    const [top, call, inputs] = cursor.path;
    if (top === 'modules' && call !== undefined && inputs === 'inputs' && cursor.path.length === 3) {
      const folder = index.moduleFolder(call);
      return folder === undefined
        ? []
        : index
            .declared(folder, 'variable')
            .map((o) => ({ label: o.name, what: 'variable', detail: `variable of module ${call} (${where(o, index.root)})`, replaceFrom }));
    }
    return propertiesAt(schema, cursor.path).map((p) => ({
      label: p.name,
      what: 'key',
      replaceFrom,
      ...(p.description ? { documentation: p.description } : {}),
    }));
  }
  const slot = slotAt(cursor.path, kinds);
  if (slot === undefined) return [];
  if (slot === 'policy-rule') return RULE_VARIABLES.map(([name, type]) => ({ label: name, what: 'cel', detail: type, replaceFrom }));
  if (slot === 'auto-approve')
    return AUTO_APPROVE_FIELDS.map((field) => ({
      label: `plan.${field}`,
      what: 'cel',
      detail: field === 'kinds' ? 'map of ints by kind' : 'int',
      replaceFrom,
    }));
  if (slot === 'model')
    return modelsFor(index, kinds, scope, cursor.path).map((model) => ({ label: model, what: 'name', detail: 'model', replaceFrom }));
  if (slot === 'address') {
    return kinds
      .filter((b) => !b.single && !b.list)
      .flatMap((b) =>
        index
          .declared(scope, `resource:${b.kind}`)
          .map((o) => ({ label: resourceAddress(b.kind, o.name), what: 'name' as const, detail: where(o, index.root), replaceFrom })),
      );
  }
  return names(slot);
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The models the configuration already names for a provider of the credentials the entry at `path` attaches: the
 * default models and tokens' allowed models of every entry of its kind that attaches a credential of the same
 * provider. From the configuration alone: no API is asked which models a vendor has.
 */
function modelsFor(index: NamesIndex, kinds: readonly KindBlock[], scope: string, path: readonly string[]): string[] {
  const block = kinds.find((b) => !b.parent && b.key === path[0]);
  const rule = block?.references?.find((r) => r.attribute === 'credentials');
  if (!block || !rule || !('kind' in rule)) return [];
  const providerOf = new Map(index.declared(scope, `resource:${rule.kind}`).map((o) => [o.name, o.entry?.provider]));
  const providersOf = (entry: Record<string, unknown> | undefined) =>
    new Set(
      (Array.isArray(entry?.credentials) ? entry.credentials : [])
        .map((name) => providerOf.get(String(name)))
        .filter((p): p is string => typeof p === 'string'),
    );
  const entries = index.declared(scope, `resource:${block.kind}`);
  const mine = providersOf(entries.find((o) => o.name === path[1])?.entry);
  const children = kinds.filter((b) => b.parent?.kind === block.kind && !b.single && !b.list).map((b) => b.key);
  const models = new Set<string>();
  const add = (value: unknown) => [value].flat().forEach((m) => typeof m === 'string' && !m.includes('${') && models.add(m));
  for (const { entry } of entries) {
    if (![...providersOf(entry)].some((p) => mine.has(p))) continue;
    add(entry?.defaultModel);
    for (const key of children) {
      const inner = entry?.[key];
      if (isMapping(inner)) for (const child of Object.values(inner)) if (isMapping(child)) add(child.allowedModels);
    }
  }
  return [...models].sort();
}
