#!/usr/bin/env bash
# The recipe of a new plan notice, run for real (issue 49, "adding a warning is the check, its test and nothing else"):
# on a scratch branch in a temporary worktree, it adds a "gateway token that never expires" warning as one entry of
# src/planner/checks/notices.ts, its test, and regenerates the docs table; then runs that test and the docs-tables
# check, and counts the files the change touched (at most 3). The branch and worktree are removed at the end.
#
#   bash scripts/recipes/add-notice.sh        # prints the files and exits 1 when more than 3 changed or a test fails
set -euo pipefail
root=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
scratch=$(mktemp -d)
branch="recipe-notice-$$"
cleanup() {
  git -C "$root" worktree remove --force "$scratch" >/dev/null 2>&1 || true
  git -C "$root" branch -D "$branch" >/dev/null 2>&1 || true
}
trap cleanup EXIT
git -C "$root" worktree add -q -b "$branch" "$scratch" HEAD
ln -s "$root/node_modules" "$scratch/node_modules"
cp -r "$root/src/generated" "$scratch/src/generated"
cd "$scratch"

# 1. The check: one entry of the table.
node - <<'JS'
const { readFileSync, writeFileSync } = require('node:fs');
const file = 'src/planner/checks/notices.ts';
const entry = `  check<{ gateway: string }>({
    code: 'token_never_expires',
    heading: 'Gateway tokens that never expire (give each an expiresInDays):',
    severity: 'warning',
    shownBy: { plan: true, drift: false },
    dataKeys: { gateway: 'the gateway the token is of' },
    find: ({ after }) =>
      after.desired.resources
        .filter((r) => r.kind === 'gateway_token' && (r.attributes as { expiresInDays?: number | null }).expiresInDays == null)
        .map((r) => ({ address: r.address, kind: r.kind, data: { gateway: r.address.split('.')[1]!.split('/')[0]! } })),
    message: ({ address }) => \`\${address}: never expires\`,
  }),
];`;
const text = readFileSync(file, 'utf8');
const end = text.indexOf('\n];\n', text.indexOf('export const noticeChecks'));
writeFileSync(file, `${text.slice(0, end)}\n${entry}${text.slice(end + 4)}`);
JS

# 2. Its test.
cat > test/planner/token-never-expires.test.ts <<'TS'
// A gateway token without expiresInDays is a warning notice: listed in text, counted by autoApprove's plan.warnings.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { autoApproveVariables } from '../../src/policy/auto-approve.js';
import { renderPlanText } from '../../src/render/index.js';
import { harness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await harness({ account: fixtures.accounts[0]!.id });
});
afterEach(async () => h.close());

const config = (expiry: string) => `
projects:
  shop: { description: Shop }
credentials:
  openai: { provider: openai, label: shop-openai, secret: { env: OPENAI_KEY } }
gateways:
  main:
    project: shop
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci:
        scopes: [run]
${expiry}`;

it('warns of a token that never expires, and autoApprove counts it', async () => {
  h.config(config(''));
  const plan = await h.plan();
  expect(plan.notices.filter((n) => n.code === 'token_never_expires')).toMatchObject([
    { severity: 'warning', address: 'gateway_token.main/ci', data: { gateway: 'main' } },
  ]);
  expect(renderPlanText(plan, { color: false })).toContain('  ! gateway_token.main/ci: never expires\n');
  h.config(config('        expiresInDays: 30\n'));
  const expiring = await h.plan();
  expect(expiring.notices.filter((n) => n.code === 'token_never_expires')).toEqual([]);
  expect(autoApproveVariables(plan).warnings).toBe(autoApproveVariables(expiring).warnings + 1n);
});
TS

# 3. The generated docs table.
node scripts/docs-tables.mjs --write

npx vitest run test/planner/token-never-expires.test.ts test/architecture/docs-tables.test.ts >/dev/null
changed=$(git status --porcelain --untracked-files=all -- . ':!node_modules' ':!src/generated')
echo "$changed"
count=$(printf '%s\n' "$changed" | grep -c .)
echo "files changed: $count (at most 3)"
[ "$count" -le 3 ]
