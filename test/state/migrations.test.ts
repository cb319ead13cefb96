import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/state/index.js';
import type { StateError as StateErrorType } from '../../src/state/index.js';
import { upgradeDocument } from '../../src/state/migrations.js';
import type { Upgrade } from '../../src/state/migrations.js';

describe('the upgrade chain', () => {
  // A synthetic format 0 that named the resources `entries` and had no journal.
  const v0ToV1: Upgrade = ({ entries, ...rest }) => ({ ...rest, resources: entries, journal: [] });

  it('runs one upgrade per version step and stamps the new version', () => {
    const upgraded = upgradeDocument({ version: 0, account: 'a', entries: { 'project.x': {} } }, 'state.json', [v0ToV1], 1);
    expect(upgraded).toEqual({ version: 1, account: 'a', resources: { 'project.x': {} }, journal: [] });
  });

  it('chains several steps in order', () => {
    const v1ToV2: Upgrade = (doc) => ({ ...doc, upgradedTwice: true });
    expect(upgradeDocument({ version: 0, entries: {} }, 'state.json', [v0ToV1, v1ToV2], 2)).toEqual({
      version: 2,
      resources: {},
      journal: [],
      upgradedTwice: true,
    });
  });

  it('leaves a current document alone', () => {
    const doc = { version: 1, resources: {} };
    expect(upgradeDocument(doc, 'state.json', [v0ToV1], 1)).toBe(doc);
  });

  it('refuses a version without an upgrade, and a missing version', () => {
    const noStep = (() => {
      try {
        return upgradeDocument({ version: 0 }, 'state.json');
      } catch (e) {
        return e as StateErrorType;
      }
    })() as StateErrorType;
    expect(noStep).toBeInstanceOf(StateError);
    expect(noStep.code).toBe('STATE_VERSION_UNKNOWN');
    expect(noStep.message).toBe('The state file state.json has format version 0, which this cplane cannot upgrade.');
    expect(() => upgradeDocument({ serial: 1 }, 'state.json')).toThrow(
      'The state file state.json has no valid version field (found undefined).',
    );
  });
});
