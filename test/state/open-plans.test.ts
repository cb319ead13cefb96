// The open-plan registry of a state file: `state.json.plans.json` beside it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileBackend } from '../../src/state/index.js';
import { openPlansConformance } from './open-plans-conformance.js';

openPlansConformance('a state file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-open-plans-'));
  const backend = new LocalFileBackend(join(dir, 'acc', 'state.json'));
  const file = join(dir, 'acc', 'state.json.plans.json');
  return {
    registry: backend.openPlans(),
    async plant(_pr, data) {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { plans: unknown[] };
      writeFileSync(file, JSON.stringify({ plans: [...stored.plans, data] }));
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
