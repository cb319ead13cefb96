#!/usr/bin/env node
// A stand-in for the GitHub CLI (`gh`) in the workflow harness's jobs: the few calls the documented workflows make
// to find the merged pull request's plans, answered from the harness's record of pull requests and runs (a JSON
// file named by $FAKE_GH_STATE) and its artifact folders. `--jq` takes the paths the workflows use (`.[0].number`,
// `.headRefOid`, `.headRefName`). Anything else is refused, so a workflow that starts calling more of gh fails here, visibly.
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** @type {{ pulls: { number: number, head: string, branch?: string, mergeCommit?: string }[], runs: { id: number, workflow: string, event: string, headSha: string, branch?: string, conclusion: string }[], artifacts: string }} */
const state = JSON.parse(readFileSync(process.env.FAKE_GH_STATE ?? '', 'utf8'));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    jq: { type: 'string' },
    repo: { type: 'string' },
    json: { type: 'string' },
    workflow: { type: 'string' },
    event: { type: 'string' },
    commit: { type: 'string' },
    branch: { type: 'string' },
    status: { type: 'string' },
    name: { type: 'string' },
    pattern: { type: 'string' },
    dir: { type: 'string', short: 'D' },
  },
});

/** `.a`, `.[0].b`: the jq paths the workflows use. */
function jq(value, path) {
  let current = value;
  for (const [, index, key] of path.matchAll(/\.(?:\[(\d+)\]|([\w-]+))/g)) current = current?.[index !== undefined ? Number(index) : key];
  return current === undefined || current === null ? 'null' : typeof current === 'object' ? JSON.stringify(current) : String(current);
}
const print = (value) => process.stdout.write(`${values.jq ? jq(value, values.jq) : JSON.stringify(value)}\n`);
const fail = (message) => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const [group, verb, target] = positionals;
if (group === 'api') {
  const commit = /^repos\/[^/]+\/[^/]+\/commits\/([0-9a-f]+)\/pulls$/.exec(verb ?? '');
  if (!commit) fail(`fake gh: no stand-in for gh api ${verb}`);
  print(state.pulls.filter((p) => p.mergeCommit === commit[1] || p.head === commit[1]).map((p) => ({ number: p.number })));
} else if (group === 'pr' && verb === 'view') {
  const pull = state.pulls.find((p) => p.number === Number(target));
  if (!pull) fail(`GraphQL: Could not resolve to a PullRequest with the number of ${target}.`);
  print({ headRefOid: pull.head, headRefName: pull.branch ?? null });
} else if (group === 'run' && verb === 'list') {
  const runs = state.runs
    .filter((r) => (!values.workflow || r.workflow === values.workflow) && (!values.event || r.event === values.event))
    .filter((r) => (!values.commit || r.headSha === values.commit) && (!values.status || r.conclusion === values.status))
    .filter((r) => !values.branch || r.branch === values.branch)
    .sort((a, b) => b.id - a.id);
  print(runs.map((r) => ({ databaseId: r.id })));
} else if (group === 'run' && verb === 'download') {
  const folder = join(state.artifacts, String(target));
  const names = readdirSync(folder);
  const pattern = values.pattern ? new RegExp(`^${values.pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`) : undefined;
  const chosen = names.filter((n) => (values.name ? n === values.name : !pattern || pattern.test(n)));
  if (chosen.length === 0) fail('no valid artifacts found to download');
  // gh: one artifact by --name goes into the folder itself; several, each into a folder of its name.
  const dir = resolve(values.dir ?? '.');
  for (const name of chosen) cpSync(join(folder, name), values.name ? dir : join(dir, name), { recursive: true });
} else {
  fail(`fake gh: no stand-in for gh ${positionals.join(' ')}`);
}
