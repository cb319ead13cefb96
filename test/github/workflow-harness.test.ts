// The workflow harness itself (test/github/workflow-harness.ts), on small workflows of run steps: what GitHub does
// with matrices, `needs:`, `if:`, environments' secrets, step outputs and exit codes, so a documented workflow that
// the harness passes would pass on GitHub for those reasons too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateExpression, expandMatrix, parseWorkflowFile, runWorkflow, type RunOptions } from './workflow-harness.js';

const temp = mkdtempSync(join(tmpdir(), 'cplane-harness-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const repo = join(temp, 'repo');
execFileSync('sh', [
  '-c',
  `git init -q -b main ${repo} && cd ${repo} && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m one`,
]);
const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
let runId = 1;

const run = async (text: string, options: Partial<RunOptions> = {}) =>
  runWorkflow(await parseWorkflowFile('w.yml', text), {
    repo,
    repository: 'acme/infra',
    eventName: 'push',
    event: { ref: 'refs/heads/main' },
    sha,
    ref: 'refs/heads/main',
    runId: runId++,
    secrets: {},
    apiUrl: 'http://127.0.0.1:9',
    action: { ref: 'OWNER/cplane@v0', path: temp },
    artifacts: join(temp, 'artifacts'),
    temp,
    baseEnv: { PATH: process.env.PATH },
    ...options,
  });

describe('the workflow harness', () => {
  it("evaluates expressions with GitHub's library: functions, coercions, and errors for what GitHub refuses", () => {
    const context = { needs: { a: { outputs: { m: '{"include":[]}' } } }, github: { event_name: 'push' } };
    expect(evaluateExpression('fromJSON(needs.a.outputs.m).include[0] != null', context)).toBe(false);
    expect(evaluateExpression("github.event_name == 'PUSH'", context)).toBe(true);
    expect(evaluateExpression("format('cplane-apply-{0}', 'prod')", context)).toBe('cplane-apply-prod');
    expect(() => evaluateExpression('nosuchfunction()', context)).toThrow();
  });

  it('expands matrices as GitHub does: the product, exclude, and include merged or added', () => {
    expect(
      expandMatrix({ os: ['a', 'b'], node: [1, 2], exclude: [{ os: 'b', node: 2 }], include: [{ os: 'a', extra: true }, { os: 'c' }] }),
    ).toEqual([{ os: 'a', node: 1, extra: true }, { os: 'a', node: 2, extra: true }, { os: 'b', node: 1 }, { os: 'c' }]);
    expect(expandMatrix({ include: [{ deployment: 'dev' }, { deployment: 'prod' }] })).toEqual([
      { deployment: 'dev' },
      { deployment: 'prod' },
    ]);
  });

  it("refuses what is not a workflow, with the parser's message", async () => {
    await expect(
      parseWorkflowFile(
        'w.yml',
        'on: push\njobs:\n  a:\n    runs-on: x\n    concurrency: { group: a-${{ github.sha }} }\n    steps: [{ run: "true" }]\n',
      ),
    ).rejects.toThrow(/Unexpected flow-map-start/);
    await expect(parseWorkflowFile('w.yml', 'on: push\njobs:\n  a:\n    runs-on: x\n    stepz: []\n')).rejects.toThrow(
      /not a valid workflow/,
    );
  });

  it('a step that exits non-zero fails its job; later steps skip unless always(); needs see results and outputs', async () => {
    const result = await run(`on: push
jobs:
  first:
    runs-on: ubuntu-latest
    outputs:
      word: \${{ steps.say.outputs.word }}
    steps:
      - id: say
        run: echo "word=hello" >> "$GITHUB_OUTPUT"
      - run: exit 3
      - run: echo never
      - if: always()
        run: echo cleanup
  second:
    needs: first
    runs-on: ubuntu-latest
    steps:
      - run: echo never
  third:
    needs: first
    if: \${{ !cancelled() && needs.first.result == 'failure' }}
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ needs.first.outputs.word }}"
`);
    const [first] = result.job('first');
    expect(first!.steps.map((s) => [s.name, s.outcome])).toEqual([
      ['Run echo "word=hello" >> "$GITHUB_OUTPUT"', 'success'],
      ['Run exit 3', 'failure'],
      ['Run echo never', 'skipped'],
      ['Run echo cleanup', 'success'],
    ]);
    expect(result.result('first')).toBe('failure');
    expect(result.result('second')).toBe('skipped');
    expect(result.job('third')[0]!.steps[0]!.stdout).toBe('hello\n');
    expect(result.conclusion).toBe('failure');
  });

  it('continue-on-error: the step fails, the job goes on and succeeds', async () => {
    const result = await run(`on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - id: flaky
        continue-on-error: true
        run: exit 1
      - run: echo "\${{ steps.flaky.outcome }}/\${{ steps.flaky.conclusion }}"
`);
    expect(result.job('a')[0]!.steps.map((s) => s.outcome)).toEqual(['failure', 'success']);
    expect(result.job('a')[0]!.steps[1]!.stdout).toBe('failure/success\n');
    expect(result.result('a')).toBe('success');
  });

  it("a job in an environment gets that environment's secrets over the repository's, and no other environment's", async () => {
    const result = await run(
      `on: push
jobs:
  apply:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        deployment: [dev, prod]
    environment: \${{ matrix.deployment }}
    env:
      TOKEN: \${{ secrets.TOKEN }}
      OTHER: \${{ secrets.PROD_ONLY }}
    steps:
      - run: echo "$TOKEN/$OTHER"
`,
      { secrets: { TOKEN: 'repo' }, environments: { dev: { TOKEN: 'dev-token' }, prod: { TOKEN: 'prod-token', PROD_ONLY: 'p' } } },
    );
    expect(result.job('apply').map((j) => [j.environment, j.steps[0]!.stdout])).toEqual([
      ['dev', 'dev-token/\n'],
      ['prod', 'prod-token/p\n'],
    ]);
  });
});
