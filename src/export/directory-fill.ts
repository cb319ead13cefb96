/**
 * The values a deployment `export --as-deployment` adds gives the configuration's `directory:` through its variables:
 * a user's or group's id where this account's shares show it (no operation lists users or groups, but a record the
 * configuration shares with group `team` is shared, live, with one group id), and never a key. A public key no
 * operation returns, and a Service Account's pinned key id is a trust decision: the API's offer is named in the
 * placeholder for a person to check, never written as the pin.
 */
import { fillIn } from '../config/index.js';
import type { DirectoryEntry } from './build-model.js';
import type { Filled, Open } from './deployment-conventions.js';
import type { GrantEvidence } from './infer-variables.js';

const WHOLE_VARIABLE = /^\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}$/;
const KEY_ID = /^x25519:[0-9a-f]{16}$/;

type Section = DirectoryEntry['section'];
const NOUN: Record<Section, string> = { users: 'user', groups: 'group' };

/** The configuration's `directory:` entries whose id, key or pinned key id a variable gives, in file order. */
interface DirectoryVariables {
  principals: { section: Section; local: string; idVar?: string; keyVar?: string }[];
  pins: { name: string; keyIdVar: string }[];
}

const isMap = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const variableIn = (value: unknown) => (typeof value === 'string' ? WHOLE_VARIABLE.exec(value)?.[1] : undefined);

function directoryVariables(contents: readonly unknown[]): DirectoryVariables {
  const found: DirectoryVariables = { principals: [], pins: [] };
  for (const content of contents) {
    const directory = isMap(content) && isMap(content.directory) ? content.directory : {};
    for (const section of ['users', 'groups'] as const) {
      for (const [local, entry] of Object.entries(isMap(directory[section]) ? directory[section] : {})) {
        if (!isMap(entry)) continue;
        const idVar = variableIn(entry.id);
        const keyVar = variableIn(entry.publicKey);
        if (idVar || keyVar) found.principals.push({ section, local, ...(idVar ? { idVar } : {}), ...(keyVar ? { keyVar } : {}) });
      }
    }
    for (const [name, pin] of Object.entries(isMap(directory.serviceAccounts) ? directory.serviceAccounts : {})) {
      const keyIdVar = isMap(pin) ? variableIn(pin.keyId) : undefined;
      if (keyIdVar) found.pins.push({ name, keyIdVar });
    }
  }
  return found;
}

/**
 * The live reader each configured name stands for, where the shares leave one: the live readers common to every
 * matched entry the name is configured on, less those settled for other names, until nothing more settles.
 */
function readersByShares(section: Section, grants: readonly GrantEvidence[]): Map<string, { live: string; address: string }> {
  const candidates = new Map<string, { live: Set<string>; address: string }>();
  for (const g of grants.filter((g) => g.section === section)) {
    for (const name of g.configured) {
      const had = candidates.get(name);
      const live = had ? new Set([...had.live].filter((x) => g.live.includes(x))) : new Set(g.live);
      candidates.set(name, { live, address: had?.address ?? g.address });
    }
  }
  const settled = new Map<string, { live: string; address: string }>();
  for (let more = true; more;) {
    more = false;
    const taken = new Set([...settled.values()].map((s) => s.live));
    for (const [name, { live, address }] of candidates) {
      const left = [...live].filter((x) => !taken.has(x));
      if (settled.has(name) || left.length !== 1) continue;
      settled.set(name, { live: left[0]!, address });
      taken.add(left[0]!);
      more = true;
    }
  }
  return settled;
}

export interface DirectoryFill {
  values: Record<string, unknown>;
  filled: Filled[];
  open: Open[];
  /** This account's users and groups its records are shared with that no configured entry stands for. */
  unmatched: DirectoryEntry[];
}

/**
 * The directory variables of the new deployment: `wanted` says which it must give (those no default or var file
 * gives); ids found are values, everything else a placeholder saying what to give.
 */
export function directoryFill(
  contents: readonly unknown[],
  live: { directory: readonly DirectoryEntry[]; pins: readonly { name: string; keyId: string }[]; grants: readonly GrantEvidence[] },
  wanted: (variable: string) => boolean,
): DirectoryFill {
  const fill: DirectoryFill = { values: {}, filled: [], open: [], unmatched: [] };
  const configured = directoryVariables(contents);
  const used = new Set<DirectoryEntry>();
  const open = (variable: string, what: string) => {
    fill.values[variable] = fillIn(what);
    fill.open.push({ key: `variables.${variable}`, what, placeholder: true });
  };
  for (const section of ['users', 'groups'] as const) {
    const byShares = readersByShares(section, live.grants);
    for (const { local, idVar, keyVar } of configured.principals.filter((p) => p.section === section)) {
      const who = `${NOUN[section]} ${local} (directory.${section}.${local}) in this deployment's account`;
      // Export names an entry from its id: the configuration's own entry of that name is the same principal.
      const same = live.directory.find((d) => d.section === section && (d.idVar === idVar || d.local === local));
      const shared = byShares.get(local);
      const entry = same ?? live.directory.find((d) => d.section === section && d.local === shared?.live);
      if (idVar && wanted(idVar)) {
        if (entry) {
          used.add(entry);
          fill.values[idVar] = entry.id;
          const from = same ? 'the same id in this account' : `this account's shares: ${shared!.address} is shared with it`;
          fill.filled.push({ key: `variables.${idVar}`, value: entry.id, from });
        } else open(idVar, `the id of ${who}: no record of this account is shared with it, and no operation lists ${section}`);
      }
      if (keyVar && wanted(keyVar)) open(keyVar, `the public key (X25519, base64) of ${who}: no operation returns it`);
    }
  }
  for (const { name, keyIdVar } of configured.pins.filter((p) => wanted(p.keyIdVar))) {
    const offered = live.pins.find((p) => p.name === name)?.keyId;
    const offer =
      offered === undefined
        ? 'no record of this account is granted to it, so export read no key of it'
        : KEY_ID.test(offered)
          ? `the API offers ${offered}, which cplane does not pin on the API's word`
          : 'the API offers a key id that is not one (x25519: and 16 hex digits)';
    open(keyIdVar, `the key id of Service Account ${name} in this deployment's account, as its dashboard shows it: ${offer}`);
  }
  fill.unmatched = live.directory.filter((d) => !used.has(d));
  return fill;
}
