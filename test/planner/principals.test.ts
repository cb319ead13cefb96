// Kinds that touch the same principal, from their declarations alone (`touches`): a kind the registry does not list
// (the deleteGroup experiment's, test/planner/fixtures/group-deletion-kind.ts) beside the registry's group roles and
// group shares. Configured together, a grant and the deletion of its group are refused at load, at the grant; in a
// plan, the deletion waits for the grant's removal. Neither the fixture nor the registry's kinds name each other.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDesired } from '../../src/config/build-desired.js';
import type { ConfigFile } from '../../src/config/files/config-file.js';
import { collectDirectory } from '../../src/config/blocks/directory.js';
import { readSourceFile } from '../../src/config/files/source-file.js';
import type { Diagnostic } from '../../src/config/types.js';
import type { Action } from '../../src/plan-model/index.js';
import { principalEdges } from '../../src/planner/stages/principals.js';
import { makeStep } from '../../src/planner/steps.js';
import { definitionOf, kindBlocks } from '../../src/providers/index.js';
import { groupDeletionKind } from './fixtures/group-deletion-kind.js';

const dir = mkdtempSync(join(tmpdir(), 'cplane-principals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = 'A'.repeat(43) + '=';
const directory = `directory:
  groups:
    platform: { id: 00000000-0000-4000-8000-000000000001, publicKey: ${key} }
    ops: { id: 00000000-0000-4000-8000-000000000002, publicKey: ${key} }
  roles:
    admin: { id: 00000000-0000-4000-8000-000000000003 }
`;

async function load(yaml: string): Promise<Diagnostic[]> {
  const path = join(dir, 'main.yaml');
  writeFileSync(path, `version: 1\n${directory}${yaml}`);
  const diagnostics: Diagnostic[] = [];
  const file = (await readSourceFile(path, 'main.yaml', diagnostics))!;
  const config = file.value as ConfigFile;
  buildDesired(
    [{ file, config }],
    [...kindBlocks, groupDeletionKind.config],
    diagnostics,
    collectDirectory([{ file, config }], diagnostics),
  );
  return diagnostics;
}

describe('a grant beside the deletion of its principal, at load', () => {
  it('refuses a group role of the deleted group, at the role, naming the deletion', async () => {
    const diagnostics = await load(
      'projects:\n  payments:\n    groupRoles: { platform: admin }\ngroupDeletions:\n  retire: { group: platform }\n',
    );
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'principal_removed',
        'project_group_role.payments/platform gives group platform access, which group_deletion.retire deletes (main.yaml:12:20)',
        { file: 'main.yaml', line: 10, col: 19 },
      ],
    ]);
    expect(diagnostics[0]!.detail).toBe('Both would be applied on every run. Remove this entry, or the deletion of group platform.');
  });

  it('refuses a share of a record with the deleted group, at its name in the list', async () => {
    const diagnostics = await load(
      'projects:\n  payments:\n    records:\n      stripe-key:\n        grants: { groups: [ops] }\ngroupDeletions:\n  retire: { group: ops }\n',
    );
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'principal_removed',
        'group_share.payments/stripe-key/ops gives group ops access, which group_deletion.retire deletes (main.yaml:14:20)',
        { file: 'main.yaml', line: 12, col: 28 },
      ],
    ]);
  });

  it('takes a role of another group as it is', async () => {
    expect(await load('projects:\n  payments:\n    groupRoles: { ops: admin }\ngroupDeletions:\n  retire: { group: platform }\n')).toEqual(
      [],
    );
  });
});

describe('a plan that deletes a group', () => {
  const registryAnd = (kind: string) =>
    kind === groupDeletionKind.kind ? groupDeletionKind.config.touches! : (definitionOf(kind).config.touches ?? []);
  const step = (address: string, kind: string, action: Action) =>
    makeStep({ address, kind, action, changes: [], writes: [], causes: ['configuration'] });
  const attributes: Record<string, Record<string, unknown>> = {
    'project_group_role.payments/platform': { project: 'payments', group: 'platform', role: 'admin' },
    'group_share.payments/stripe-key/platform': { record: 'payments/stripe-key', reader: 'platform' },
    'user_share.payments/stripe-key/platform': { record: 'payments/stripe-key', reader: 'platform' },
    'project_group_role.payments/ops': { project: 'payments', group: 'ops', role: 'admin' },
    'group_deletion.retire': { group: 'platform' },
  };

  it('waits for the removal of every grant to that group, of any kind, and for nothing else', () => {
    const steps = [
      step('project_group_role.payments/platform', 'project_group_role', 'forget'),
      step('group_share.payments/stripe-key/platform', 'group_share', 'delete'),
      step('user_share.payments/stripe-key/platform', 'user_share', 'delete'),
      step('project_group_role.payments/ops', 'project_group_role', 'forget'),
      step('group_deletion.retire', 'group_deletion', 'create'),
    ];
    expect(principalEdges(steps, (a) => attributes[a], registryAnd)).toEqual([
      { from: 'group_deletion.retire', to: 'project_group_role.payments/platform' },
      { from: 'group_deletion.retire', to: 'group_share.payments/stripe-key/platform' },
    ]);
  });

  it('orders nothing once the deletion leaves the configuration (it is forgotten)', () => {
    const steps = [
      step('project_group_role.payments/platform', 'project_group_role', 'create'),
      step('group_deletion.retire', 'group_deletion', 'forget'),
    ];
    expect(principalEdges(steps, (a) => attributes[a], registryAnd)).toEqual([]);
  });
});
