// docs/architecture.md's recipe of a kind is a script, scripts/recipes/add-kind.sh, whose whole run (build, type
// check, every test over the kinds and the operations) takes minutes on a busy machine, so neither the lint nor
// this suite runs it. What can silently stop applying is its edits: each finds its place by an anchor in files
// others change. This runs those edits alone (seconds) and checks that each still finds its anchor, once, and that
// they touch exactly the files the recipe names.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

// A git worktree, a copy of node_modules' links and six edits: far under this bound even on a loaded machine.
it("the add-kind recipe's edits still apply, to the files the recipe names", { timeout: 300_000 }, () => {
  const { RECIPE_KEEP: _kept, ...env } = process.env;
  const out = execFileSync('bash', ['scripts/recipes/add-kind.sh', '--edits-only'], { encoding: 'utf8', env });
  // `git status --porcelain` lines: two status letters, a space, the path.
  const files = out
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(3))
    .sort();
  expect(files).toEqual([
    'docs/configuration.md',
    'src/api/operations.ts',
    'src/emulator/handlers/projects.ts',
    'src/providers/index.ts',
    'src/providers/webhook.ts',
    'test/kinds/webhook.ts',
  ]);
});
