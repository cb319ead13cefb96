/**
 * `--adopt`: records the exported objects in the state of the SOURCE account,
 * so that `cplane plan` there right after the export has nothing to do. Each
 * address gets the live object's id and parents (as the planner's kind definitions
 * identify them) and, as its last applied inputs, the attributes the loader
 * reads from the exported files. Write-only values (credential secrets, OTel
 * header values) were never seen, so they have no fingerprint: the entry is
 * marked `adoptedBy: 'export'` so the planner treats them as unknown, not as changed.
 */
import { loadConfiguration } from '../providers/index.js';
import { exportedDefinitionOf } from '../providers/index.js';
import { openState, StateError, type StateStore } from '../state/index.js';
import type { ResourceState, StateData } from '../state/types.js';
import type { Adoption } from './build-model.js';
import { suggestedCommand } from '../text/escape-for.js';

export interface AdoptOptions {
  outDir: string;
  account: string;
  env: NodeJS.ProcessEnv;
  /** The command line, recorded in the state lock. */
  command: string;
  /** How long to wait for a lock another run holds (`--lock-timeout`). */
  lockTimeoutMs: number;
}

export interface PendingAdoption {
  /**
   * Writes the adopted addresses (the exported folder must be written) and returns how many there are.
   * `directory` are the values of the folder's directory variables in the exported account: the ids as the
   * account has them; the public keys, which no operation returns, are not known.
   */
  record(adoptions: Adoption[], directory: { name: string; value: string | undefined }[]): Promise<number>;
  /** Releases the state lock. */
  close(): Promise<void>;
}

/** Takes the state's lock; a state with writes of an interrupted apply still in its journal is refused. */
export async function beginAdoption(options: AdoptOptions): Promise<PendingAdoption> {
  const store = await openState({
    configDir: options.outDir,
    account: options.account,
    env: options.env,
    command: options.command,
    lock: true,
    lockTimeoutMs: options.lockTimeoutMs,
  });
  const pending = store.data.journal.length;
  if (pending > 0) {
    await store.close();
    // Those writes may have created objects this export would see: finishing them first keeps one address per object.
    throw new StateError(
      'STATE_JOURNAL_PENDING',
      `The state ${store.path} has ${pending} write(s) in its journal from an interrupted apply; nothing was exported or adopted.`,
      `Run \`${suggestedCommand(['apply', options.outDir])}\` to finish them, then export with --adopt again.`,
    );
  }
  return { record: (adoptions, directory) => record(store, options, adoptions, directory), close: () => store.close() };
}

/** A well-formed X25519 public key that opens nothing: it only lets the folder load to read addresses and attributes. */
const STAND_IN_KEY = Buffer.alloc(32).toString('base64');

async function record(
  store: StateStore,
  options: AdoptOptions,
  adoptions: Adoption[],
  directory: { name: string; value: string | undefined }[],
): Promise<number> {
  // The directory's public keys are not known; no attribute state records depends on them (a share's
  // attributes are its record and reader names), and no key reaches a plan from here.
  const variables = [
    { name: 'account', value: options.account },
    ...directory.map(({ name, value }) => ({ name, value: value ?? STAND_IN_KEY })),
  ];
  const { desired, diagnostics } = await loadConfiguration(options.outDir, {
    account: options.account,
    variables,
    env: {},
    cwd: options.outDir,
  });
  if (!desired) {
    throw new Error(`the exported folder does not load (${diagnostics.map((d) => d.summary).join('; ')}); no state was written`);
  }
  const attributes = new Map(desired.resources.map((r) => [r.address, r.attributes]));
  const now = new Date().toISOString();
  await store.update((draft: StateData) => {
    const resources: Record<string, ResourceState> = {};
    for (const { address, kind, live } of adoptions) {
      const definition = exportedDefinitionOf(kind);
      const identity = definition.identify({ live });
      const inputs = attributes.get(address);
      if (!inputs) throw new Error(`the exported folder has no ${address}; no state was written`);
      const earlier = draft.resources[address];
      const same = earlier !== undefined && earlier.kind === kind && earlier.id === identity.id;
      const entry: ResourceState = {
        kind,
        id: identity.id,
        inputs: structuredClone(inputs) as unknown as Record<string, unknown>,
        // Fingerprints and sealed token plaintext stay valid only for the same remote object.
        fingerprints: same ? earlier.fingerprints : {},
        createdAt: same ? earlier.createdAt : now,
        updatedAt: now,
      };
      if (identity.parents) entry.parents = identity.parents;
      // Outputs the kind's definition declares (the start of a token) are safe to show; `cplane output` prints them.
      const outputs = outputsOf(definition.relations.outputs, live);
      if (outputs) entry.outputs = outputs;
      if (same && earlier.sealed) entry.sealed = earlier.sealed;
      if (same && earlier.fingerprintAddress) entry.fingerprintAddress = earlier.fingerprintAddress;
      // Adopted during a renewal's overlap: the old object it superseded is still the first apply's to revoke after it
      // (found by id, since the export may name the object at another address than the configuration did).
      const renewed = same ? earlier : Object.values(draft.resources).find((r) => r.kind === kind && r.id === identity.id);
      if (renewed?.superseded) entry.superseded = renewed.superseded;
      if (!same || Object.keys(earlier.fingerprints).length === 0) entry.adoptedBy = 'export';
      resources[address] = entry;
    }
    // Addresses no longer exported leave the state (they are forgotten, never deleted): otherwise
    // the next plan would remove objects the export merely left out.
    draft.resources = resources;
  });
  return adoptions.length;
}

/** The declared outputs (name -> field) read from a live object; undefined when the kind declares none. */
function outputsOf(declared: Record<string, string> | undefined, live: unknown): Record<string, string> | undefined {
  if (!declared) return undefined;
  const fields = live as Record<string, unknown>;
  return Object.fromEntries(Object.entries(declared).map(([name, field]) => [name, String(fields[field] ?? '')]));
}
