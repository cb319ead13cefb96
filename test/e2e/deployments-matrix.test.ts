// The fleet in a CI matrix, with the real CLI against three emulator accounts: `plan --all --shard I/N --out DIR` in
// three "jobs", then `plan --merge` makes the one comment `plan --all` would post; a tampered, forged, missing or
// doubled plan is refused or named.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extraAccount } from '../../src/emulator/index.js';
import { planMac } from '../../src/saved-plan/index.js';
import { world, type World } from './helpers.js';

const [t1, t2, t3] = [extraAccount(1).id, extraAccount(2).id, extraAccount(3).id];

/** staging first; prod-eu and prod-us after it; canary after both (three waves). */
const configuration = `version: 1
variables:
  env: { type: string }
deployments:
  staging: { account: ${t1}, variables: { env: staging } }
  prod-eu: { account: ${t2}, variables: { env: prod }, after: [staging] }
  prod-us: { account: ${t3}, variables: { env: prod }, after: [staging], environment: production-us }
  canary: { account: ${t3}, workspace: canary, variables: { env: canary }, after: [prod-eu, prod-us] }
projects:
  app: { description: "\${var.env} app" }
`;

/** The step outputs `--github` wrote, by name. */
function outputs(file: string): Record<string, string> {
  return Object.fromEntries([...readFileSync(file, 'utf8').matchAll(/(\w+)<<(\S+)\n([\s\S]*?)\n\2\n/g)].map((m) => [m[1]!, m[3]!]));
}

describe('plan --all --shard I/N, then plan --merge', () => {
  let w: World;
  /** The CI run every job of this story belongs to (GitHub Actions' GITHUB_RUN_ID and GITHUB_SHA). */
  const RUN = { GITHUB_RUN_ID: '7001', GITHUB_SHA: 'a'.repeat(40) };
  const ci = (args: string[], extra: NodeJS.ProcessEnv = {}) => w.cli(args, { ...RUN, ...extra });
  beforeAll(async () => {
    w = await world({ accounts: 3 });
    w.config(configuration);
    // Three jobs of a matrix, each planning its share into its own folder (an artifact each).
    for (const i of [1, 2, 3]) {
      const shard = await ci(['plan', '--all', '--shard', `${i}/3`, '--out', `shard-${i}`, 'infra']);
      expect(shard.code, shard.stderr).toBe(0);
    }
  });
  afterAll(() => w.close());

  /** Runs `args` with --github in a fresh folder of step outputs; returns the exit code, stderr, the comment and its key. */
  async function github(
    args: string[],
    extra: NodeJS.ProcessEnv = {},
  ): Promise<{ code: number; stderr: string; comment: string; key: string }> {
    const gh = mkdtempSync(join(w.temp, 'gh-'));
    const env = { GITHUB_OUTPUT: join(gh, 'out'), GITHUB_STEP_SUMMARY: join(gh, 'summary'), RUNNER_TEMP: gh, GITHUB_WORKSPACE: w.temp };
    const run = await ci([...args, '--github'], { ...env, ...extra });
    const out = outputs(env.GITHUB_OUTPUT);
    return { code: run.code ?? -1, stderr: run.stderr, comment: readFileSync(out.markdown_file!, 'utf8'), key: out.comment_key! };
  }

  it('each shard plans a disjoint share; the merge is byte for byte the comment of one plan --all', async () => {
    const shares = await Promise.all([1, 2, 3].map((i) => ci(['plan', '--all', '--shard', `${i}/3`, '--json', 'infra'])));
    expect(shares.map((s) => s.stderr.trim())).toEqual([
      '--shard 1/3: staging, canary (2 of 4).',
      '--shard 2/3: prod-eu (1 of 4).',
      '--shard 3/3: prod-us (1 of 4).',
    ]);

    // A shard's --github makes no comment of its own (the action's comment step is skipped): the merge's is the one.
    const gh = mkdtempSync(join(w.temp, 'gh-'));
    const shard = await ci(['plan', '--all', '--shard', '2/3', '--github', 'infra'], {
      GITHUB_OUTPUT: join(gh, 'out'),
      GITHUB_STEP_SUMMARY: join(gh, 'summary'),
      RUNNER_TEMP: gh,
    });
    expect(shard.code).toBe(0);
    expect(outputs(join(gh, 'out'))).toMatchObject({ markdown_file: '', comment_key: '', has_changes: 'true' });
    expect(readFileSync(join(gh, 'summary'), 'utf8')).toContain('<summary>prod-eu</summary>');

    const whole = await github(['plan', '--all', 'infra']);
    const merged = await github(['plan', '--merge', 'shard-1', 'shard-2', 'shard-3']);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect(merged.comment).toBe(whole.comment);
    expect(merged.key).toBe('infra:deployments');
    expect(merged.comment).toContain('### cplane plan: 4 deployments');
    expect(merged.comment.indexOf('<summary>staging</summary>')).toBeLessThan(merged.comment.indexOf('<summary>canary</summary>'));

    const markdown = await ci(['plan', '--merge', 'shard-3', 'shard-1', 'shard-2', '--markdown']);
    expect(markdown.stdout).toBe((await ci(['plan', '--all', '--markdown', 'infra'])).stdout);
    const json = JSON.parse((await ci(['plan', '--merge', 'shard-1', 'shard-2', 'shard-3', '--json', '--detailed-exitcode'])).stdout) as {
      deployments: { deployment: string; exitCode: number }[];
    };
    expect(json.deployments.map((d) => [d.deployment, d.exitCode])).toEqual([
      ['staging', 2],
      ['prod-eu', 2],
      ['prod-us', 2],
      ['canary', 2],
    ]);
    const text = await ci(['plan', '--merge', 'shard-1', 'shard-2', 'shard-3', '--detailed-exitcode']);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('Deployments: 4 planned, 4 with changes, 0 without.');
    expect(text.stdout).toContain('+ description = "canary app"');
  });

  it('a missing shard is named, in the comment and on stderr, and the merge exits 1', async () => {
    const merged = await github(['plan', '--merge', 'shard-1', 'shard-2']);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toContain('No plan for prod-us (1 of 4 deployments): no saved plan among the merged folders');
    expect(merged.comment).toMatch(/\| prod-us \| `-` \| - \| - \| - \| - \| - \| - \| error: no saved plan among the merged folders/);
  });

  it('a deployment planned twice is refused', async () => {
    const merged = await ci(['plan', '--merge', 'shard-1', 'shard-2', 'shard-3', 'shard-1']);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toContain(
      `Error: Two plans for one deployment: canary (${join(w.temp, 'shard-1', 'canary.plan.json')} and ${join(w.temp, 'shard-1', 'canary.plan.json')}); staging (`,
    );
    expect(merged.stdout).toBe('');
  });

  it('a tampered plan, or one forged under another key, is refused before anything is shown', async () => {
    const folder = 'tampered';
    cpSync(join(w.temp, 'shard-2'), join(w.temp, folder), { recursive: true });
    const file = join(w.temp, folder, 'prod-eu.plan.json');
    const saved = readFileSync(file, 'utf8');
    writeFileSync(file, saved.replace('prod app', 'harmless app'));
    const tampered = await ci(['plan', '--merge', 'shard-1', folder, 'shard-3', '--markdown']);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toBe('');
    expect(tampered.stderr).toContain(
      `Error: The saved plan ${file} was changed since it was made, or made with another state key: its MAC does not match. Nothing was merged`,
    );

    // A whole plan made up by someone without the state key, with a MAC of its own.
    const forged = JSON.parse(saved.replace('prod app', 'harmless app')) as { auth: { mac: string } };
    forged.auth.mac = planMac(new Uint8Array(32).fill(7), forged);
    writeFileSync(file, JSON.stringify(forged));
    const refused = await ci(['plan', '--merge', 'shard-1', folder, 'shard-3', '--github']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('its MAC does not match. Nothing was merged');
  });

  it('plans of another run, or of no deployment, are refused', async () => {
    // A single account's plan, authentic but made by no `plan --all`.
    mkdirSync(join(w.temp, 'single'));
    writeFileSync(join(w.temp, 'single', 'main.yaml'), 'version: 1\nprojects:\n  app: {}\n');
    mkdirSync(join(w.temp, 'lone'));
    const made = await ci(['plan', 'single', '--out', 'lone/single.plan.json']);
    expect(made.code, made.stderr).toBe(0);
    const lone = await ci(['plan', '--merge', 'shard-1', 'lone']);
    expect(lone.code).toBe(1);
    expect(lone.stderr).toContain(
      `Error: ${join(w.temp, 'lone', 'single.plan.json')} is not the plan of a deployment made by \`cplane plan --all\`. Nothing was merged.`,
    );
    // Another commit: the same deployments, other configuration files.
    w.config(`${configuration}# a later commit\n`);
    expect((await ci(['plan', '--all', '--shard', '2/3', '--out', 'later', 'infra'])).code).toBe(0);
    const mixed = await ci(['plan', '--merge', 'shard-1', 'later', 'shard-3']);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(
      /were made by two different runs: their configuration files differ \(planned at two commits\?\)\. Nothing was merged\./,
    );
    w.config(configuration);
  });

  it('flags that make a plan, and a shard without --all, are refused with what to do', async () => {
    const withAll = await ci(['plan', '--merge', 'shard-1', '--all']);
    expect(withAll.stderr).toContain('--all cannot be used with --merge: the merge reads saved plans and makes none.');
    const alone = await ci(['plan', '--shard', '1/2', 'infra']);
    expect(alone.stderr).toContain('--shard plans a share of the deployments: it needs --all');
    const bad = await ci(['plan', '--all', '--shard', '3/2', 'infra']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--shard 3/2: give I/N, this job's number I of N jobs, with 1 <= I <= N, or the name of one deployment.");
    // Outside CI, a shard needs --run: the merge takes the shards of one run only.
    const unknown = await w.cli(['plan', '--all', '--shard', '1/3', 'infra']);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      "Error: --shard 1/3: a shard is merged only with the shards of its own run, and this job does not know its run.\nIn GitHub Actions GITHUB_RUN_ID and GITHUB_SHA say it; elsewhere give every job of the run, and the merge, the same --run ID (the CI pipeline's id).\n",
    ]);
    const single = await ci(['plan', '--run', '7001', 'infra']);
    expect(single.stderr).toContain('--run names the CI run that shards belong to: it is used with --all and with --merge.');
    const none = await ci(['plan', '--merge']);
    expect(none.stderr).toContain('--merge needs the folders of saved plans');
  });
  it('a shard replayed from an earlier run of the same deployments is refused, and so is a whole earlier run', async () => {
    // Run 7002 plans the same commit again; its shard 2 is swapped for run 7001's (an artifact of the earlier run).
    const later = { GITHUB_RUN_ID: '7002' };
    for (const i of [1, 3]) expect((await ci(['plan', '--all', '--shard', `${i}/3`, '--out', `run2-${i}`, 'infra'], later)).code).toBe(0);
    const replayed = await ci(['plan', '--merge', 'run2-1', 'shard-2', 'run2-3', '--github'], later);
    expect(replayed.code).toBe(1);
    expect(replayed.stderr).toContain(
      `Error: ${join(w.temp, 'shard-2', 'prod-eu.plan.json')} was made by run 7001 at commit aaaaaaaaaaaa, and this merge belongs to run 7002 at commit aaaaaaaaaaaa: a shard of an earlier run is not merged. Nothing was merged.`,
    );
    const earlier = await ci(['plan', '--merge', 'shard-1', 'shard-2', 'shard-3'], later);
    expect(earlier.code).toBe(1);
    expect(earlier.stderr).toContain('was made by run 7001 at commit aaaaaaaaaaaa, and this merge belongs to run 7002');
    // Without a run of its own to compare with, the merge still takes one run only.
    const { GITHUB_RUN_ID: _id, ...outside } = { ...process.env, ...RUN };
    const mixed = await w.cli(['plan', '--merge', 'run2-1', 'shard-2', 'run2-3'], { GITHUB_SHA: outside.GITHUB_SHA });
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(
      /were made by two different runs: run 7001 at commit a{12} and run 7002 at commit a{12} \(a shard of an earlier run\?\)/,
    );
    // The run is under the plan's MAC: rewriting it in the replayed file breaks the MAC.
    cpSync(join(w.temp, 'shard-2'), join(w.temp, 'relabelled'), { recursive: true });
    const file = join(w.temp, 'relabelled', 'prod-eu.plan.json');
    const relabel = readFileSync(file, 'utf8');
    expect(relabel).toMatch(/"id": ?"7001"/);
    writeFileSync(file, relabel.replace(/"id": ?"7001"/, '"id": "7002"'));
    const relabelled = await ci(['plan', '--merge', 'run2-1', 'relabelled', 'run2-3'], later);
    expect(relabelled.stderr).toContain('its MAC does not match. Nothing was merged');
  });

  it('one job per deployment (--shard NAME), each holding only its own token, merges into the comment of plan --all', async () => {
    mkdirSync(join(w.temp, 'tokens'));
    writeFileSync(
      join(w.temp, 'tokens', 'main.yaml'),
      configuration.replace(
        /(\n {2}([a-z-]+): \{ account: [^,]+,)/g,
        (_, entry: string, name: string) => `${entry} token: ${name.replace('-', '_')},`,
      ),
    );
    const tokenOf = (name: string) => `CPLANE_TOKEN_${name.replace('-', '_').toUpperCase()}`;
    const names = ['staging', 'prod-eu', 'prod-us', 'canary'];
    const all = Object.fromEntries(names.map((name) => [tokenOf(name), w.env.CPLANE_TOKEN!]));
    // Each job runs in its deployment's environment: its own token is set, the others' are empty, CPLANE_TOKEN is not.
    for (const name of names) {
      const own = {
        ...Object.fromEntries(names.map((other) => [tokenOf(other), ''])),
        [tokenOf(name)]: w.env.CPLANE_TOKEN!,
        CPLANE_TOKEN: '',
      };
      const job = await ci(['plan', 'tokens', '--all', '--shard', name, '--out', `job-${name}`], own);
      expect(job.stderr, name).toContain(`--shard ${name}: ${name} (1 of 4).`);
      expect(job.code, job.stderr).toBe(0);
    }
    const whole = await github(['plan', 'tokens', '--all'], { ...all, CPLANE_TOKEN: '' });
    const merged = await github(['plan', '--merge', ...names.map((name) => `job-${name}`)]);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(whole.code);
    expect(merged.comment).toBe(whole.comment);
    expect(merged.key).toBe('tokens:deployments');
  });
});

describe('cplane deployments --matrix', () => {
  let w: World;
  beforeAll(async () => {
    w = await world({ accounts: 3 });
    w.config(configuration.replace('variables: { env: canary }', 'varFiles: [canary.yaml]'));
    writeFileSync(join(w.dir, 'canary.yaml'), 'env: canary\n');
  });
  afterAll(() => w.close());

  type Matrix = { include: { deployment: string; account: string; workspace: string; wave: number; environment: string }[] };
  const matrixOf = async (args: string[]): Promise<Matrix> => {
    const run = await w.cli(['deployments', 'infra', '--matrix', ...args]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    return JSON.parse(run.stdout) as Matrix;
  };

  it('one matrix per wave: every deployment once, in the wave apply --all runs it in', async () => {
    const waves = await Promise.all([1, 2, 3, 4].map((k) => matrixOf(['--wave', String(k)])));
    expect(waves.map((m) => m.include.map((e) => e.deployment))).toEqual([['staging'], ['prod-eu', 'prod-us'], ['canary'], []]);
    expect(waves[2]!.include[0]).toEqual({ deployment: 'canary', account: t3, workspace: 'canary', wave: 3, environment: 'canary' });
    // Each entry's GitHub environment, which holds that deployment's token alone: its name unless `environment:` says otherwise.
    expect(waves[1]!.include.map((e) => [e.deployment, e.environment])).toEqual([
      ['prod-eu', 'prod-eu'],
      ['prod-us', 'production-us'],
    ]);
    const all = (await matrixOf([])).include;
    expect(all.map((e) => e.deployment).sort()).toEqual(['canary', 'prod-eu', 'prod-us', 'staging']);
    expect(all).toEqual(waves.flatMap((m) => m.include));

    const gh = mkdtempSync(join(w.temp, 'gh-'));
    const listed = await w.cli(['deployments', 'infra', '--wave', '2', '--github'], { GITHUB_OUTPUT: join(gh, 'out') });
    expect(listed.stdout).toMatch(
      /^Wave 2 of 3: 2 deployments\.\n\nWAVE +DEPLOYMENT +ACCOUNT +WORKSPACE +AFTER\n2 +prod-eu +\S+ +default +staging\n/,
    );
    expect(JSON.parse(outputs(join(gh, 'out')).matrix!)).toEqual(waves[1]);
    expect(outputs(join(gh, 'out'))).toMatchObject({ count: '2', waves: '3' });
    const bad = await w.cli(['deployments', 'infra', '--wave', '0']);
    expect(bad.stderr).toContain('--wave 0: give the number of a wave, 1 for the first.');
    mkdirSync(join(w.temp, 'single'));
    writeFileSync(join(w.temp, 'single', 'main.yaml'), 'version: 1\nprojects:\n  app: {}\n');
    const single = await w.cli(['deployments', 'single', '--matrix']);
    expect([single.code, single.stderr]).toEqual([
      1,
      `Error: The configuration in ${join(w.temp, 'single')} declares no deployments: it has one account.\nDeclare deployments: to plan and apply it in several accounts (docs/deployments.md).\n`,
    ]);
  });

  it('--changed: only the deployments a git diff touches, in their own waves', async () => {
    const git = (...args: string[]) => execFileSync('git', ['-C', w.temp, ...args], { stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'fleet');
    expect((await matrixOf(['--changed'])).include).toEqual([]);
    writeFileSync(join(w.dir, 'canary.yaml'), 'env: canary-2\n');
    expect((await matrixOf(['--changed', '--wave', '1'])).include.map((e) => e.deployment)).toEqual(['canary']);
    writeFileSync(join(w.dir, 'main.yaml'), `${readFileSync(join(w.dir, 'main.yaml'), 'utf8')}# touched\n`);
    expect((await matrixOf(['--changed', '--base', 'HEAD'])).include.map((e) => `${e.wave}:${e.deployment}`)).toEqual([
      '1:staging',
      '2:prod-eu',
      '2:prod-us',
      '3:canary',
    ]);
  });
});
