// The change log beside state.json: a torn last record is ignored, records the snapshot already covers are not
// applied twice, the schema check is skipped only for the exact snapshot cplane wrote, and a symlink is followed.
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forceUnlockState, openState, pullState, readStateFile } from '../../src/state/index.js';
import type { OpenStateOptions, StateError, StateStore } from '../../src/state/index.js';
import { makeSandbox, newKey, resource } from './helpers.js';
import type { Sandbox } from './helpers.js';

let box: Sandbox;
let options: OpenStateOptions;
beforeEach(() => {
  box = makeSandbox();
  options = { configDir: box.configDir, account: 'acc_1', env: { ...box.env, CPLANE_STATE_KEY: newKey() }, command: 'test', lock: true };
});
afterEach(() => box.cleanup());

/** Two stored groups, left in the log as a killed process leaves them (no close, so no fold), and the lock cleared. */
async function crashAfterTwoGroups(): Promise<StateStore> {
  const store = await openState(options);
  await store.update((draft) => {
    draft.resources['project.a'] = resource('project', 'prj_a');
  });
  await store.update((draft) => {
    draft.resources['project.b'] = resource('project', 'prj_b');
  });
  await forceUnlockState({ ...options, lockId: store.lockId!, force: true });
  return store;
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => (e as StateError).code,
  );

describe('the change log', () => {
  it('replays the groups after the snapshot, ignores a torn last record, and cuts it before the next append', async () => {
    const { path } = await crashAfterTwoGroups();
    expect((JSON.parse(readFileSync(path, 'utf8')) as { serial: number }).serial).toBe(0);
    writeFileSync(`${path}.log`, `${readFileSync(`${path}.log`, 'utf8')}{"serial":3,"changes":[{"type":"resou`);

    const store = await openState(options);
    expect(store.data.serial).toBe(2);
    expect(Object.keys(store.data.resources).sort()).toEqual(['project.a', 'project.b']);
    await store.update((draft) => {
      draft.resources['project.c'] = resource('project', 'prj_c');
    });
    // Read back before the fold at close: the new record follows the two whole ones, the torn bytes are gone.
    const lines = readFileSync(`${path}.log`, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { serial?: number; base?: number }).serial ?? 'header')).toEqual(['header', 1, 2, 3]);
    await store.close();
    const after = await readStateFile(path);
    expect(after!.serial).toBe(3);
    expect(Object.keys(after!.resources).sort()).toEqual(['project.a', 'project.b', 'project.c']);
  });

  it('refuses a damaged record in the middle of the log, naming the line', async () => {
    const { path } = await crashAfterTwoGroups();
    const lines = readFileSync(`${path}.log`, 'utf8').split('\n');
    lines[1] = '{"serial":1,"changes":[oops';
    writeFileSync(`${path}.log`, lines.join('\n'));
    const error = (await openState(options).catch((e: unknown) => e)) as StateError;
    expect(error.code).toBe('STATE_CORRUPT');
    expect(error.message).toMatch(new RegExp(`^The change log ${path}\\.log is damaged at line 2: `));
  });

  it('skips the records a snapshot already covers (a fold killed before it replaced the log)', async () => {
    const { path } = await crashAfterTwoGroups();
    const log = readFileSync(`${path}.log`, 'utf8');
    // The fold wrote the new snapshot (serial 2) and was killed before the log was replaced.
    const folded = await readStateFile(path);
    writeFileSync(path, `${JSON.stringify(folded, null, 2)}\n`);
    writeFileSync(`${path}.log`, log);

    const store = await openState(options);
    expect(store.data.serial).toBe(2);
    await store.update((draft) => {
      delete draft.resources['project.a'];
    });
    await store.close();
    const after = await readStateFile(path);
    expect(after!.serial).toBe(3);
    expect(Object.keys(after!.resources)).toEqual(['project.b']);
  });

  it('refuses a logged change that breaks the schema in every reader: the store, readStateFile and state pull', async () => {
    const { path } = await crashAfterTwoGroups();
    const lines = readFileSync(`${path}.log`, 'utf8').split('\n');
    // Whole and valid JSON, but the resource has no id: the one replay checks each change before applying it.
    lines[2] = JSON.stringify({ serial: 2, changes: [{ type: 'resource', address: 'project.b', resource: { kind: 'project' } }] });
    writeFileSync(`${path}.log`, lines.join('\n'));
    const message = new RegExp(
      `^The change log of ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds a change that does not match schema/state\\.schema\\.json \\(serial 2\\): `,
    );
    const refusals = await Promise.all(
      [openState({ ...options, lock: false }), readStateFile(path), pullState(options)].map((reading) =>
        reading.then(
          () => undefined,
          (e: unknown) => e as StateError,
        ),
      ),
    );
    for (const error of refusals) {
      expect(error?.code).toBe('STATE_SCHEMA');
      expect(error?.message).toMatch(message);
    }
  });

  it('skips the schema check only when state.json is byte for byte the snapshot the log header names', async () => {
    const store = await openState(options);
    await store.close();
    const path = store.path;
    // Valid JSON that breaks the schema; the log header's hash is then made to match it, as if cplane had written it.
    const broken = readFileSync(path, 'utf8').replace('"resources": {}', '"resources": {"project.x": {"kind": "project"}}');
    writeFileSync(path, broken);
    expect(await codeOf(openState({ ...options, lock: false }))).toBe('STATE_SCHEMA');
    const [header, ...rest] = readFileSync(`${path}.log`, 'utf8').split('\n');
    const sha256 = createHash('sha256').update(broken).digest('hex');
    writeFileSync(`${path}.log`, [JSON.stringify({ ...(JSON.parse(header!) as object), sha256 }), ...rest].join('\n'));
    // The schema check is skipped; the entry's missing MAC is still caught.
    expect(await codeOf(openState({ ...options, lock: false }))).toBe('STATE_ENTRY_FORGED');
  });

  it('follows a symlinked state.json: the link stays a link and its target is updated', async () => {
    const real = join(box.root, 'elsewhere', 'state.json');
    mkdirSync(join(box.root, 'elsewhere'), { recursive: true });
    const first = await openState({ ...options, statePath: real });
    await first.close();
    mkdirSync(box.configDir, { recursive: true });
    const link = join(box.configDir, 'linked.json');
    symlinkSync(real, link);

    const store = await openState({ ...options, statePath: link });
    await store.update((draft) => {
      draft.resources['project.a'] = resource('project', 'prj_a');
    });
    await store.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(Object.keys((JSON.parse(readFileSync(real, 'utf8')) as { resources: object }).resources)).toEqual(['project.a']);
    expect(existsSync(`${real}.log`)).toBe(true);
  });

  it('refuses a symlinked state.json whose target is missing, naming the link', async () => {
    mkdirSync(join(box.configDir, '.cplane', 'acc_1'), { recursive: true });
    const link = join(box.configDir, '.cplane', 'acc_1', 'state.json');
    symlinkSync(join(box.root, 'gone.json'), link);
    const error = (await openState(options).catch((e: unknown) => e)) as StateError;
    expect(error.code).toBe('STATE_SYMLINK_BROKEN');
    expect(error.message).toBe(`The state file ${link} is a symbolic link to a file that does not exist.`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});
