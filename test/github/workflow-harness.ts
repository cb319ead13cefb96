// A stand-in for GitHub Actions that runs a workflow file job by job, as GitHub would: the file parsed and checked by
// GitHub's own parser (@actions/workflow-parser), every `${{ }}` and `if:` evaluated by GitHub's own expression library
// (@actions/expressions), matrices expanded, `needs:` respected (a job runs when its needs ended, with their results
// and outputs), environments' secrets given to the jobs that name them, each step's exit code deciding its job. This
// repository's action runs as its action.yml says (composite steps, their `if:`s evaluated); checkout is a real
// `git` fetch of the commit; upload-artifact and download-artifact are folder copies; setup-node does nothing (the
// runner's Node is the job's). It is a test tool: what it does not know (another action, a service container) it refuses.
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import type { FunctionDefinition } from '@actions/expressions/funcs/info';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction } from '@actions/workflow-parser/actions/index';
import type { ActionStep, Job, RunStep, Step, WorkflowTemplate } from '@actions/workflow-parser/model/workflow-template';
import type { MappingToken } from '@actions/workflow-parser/templates/tokens/mapping-token';
import type { TemplateToken } from '@actions/workflow-parser/templates/tokens/template-token';
import { isBasicExpression, isMapping, isSequence } from '@actions/workflow-parser/templates/tokens/type-guards';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseOutputs } from './fake-github.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Context = Record<string, Json>;

/** A workflow as GitHub's parser reads it: the converted template, and the token tree for what it leaves raw (`with`, `working-directory`). */
export interface ParsedWorkflow {
  name: string;
  template: WorkflowTemplate;
  root: MappingToken;
}

/** Parses a workflow file; throws GitHub's own messages when the file is not a valid workflow (YAML or schema). */
export async function parseWorkflowFile(name: string, content: string): Promise<ParsedWorkflow> {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const problems = () => parsed.context.errors.getErrors().map((e) => e.message);
  if (!parsed.value || problems().length > 0) throw new Error(`${name} is not a valid workflow:\n${problems().join('\n')}`);
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  if (problems().length > 0 || template.errors?.length) throw new Error(`${name} is not a valid workflow:\n${problems().join('\n')}`);
  return { name, template, root: parsed.value as MappingToken };
}

// ---------------------------------------------------------------------------------------------------------------
// Expressions: GitHub's lexer, parser and evaluator; the status functions and hashFiles are the runner's, here.

export interface Status {
  /** `success()`: no earlier step (or needed job) failed. */
  failed: boolean;
}

const contextNames = ['github', 'env', 'vars', 'secrets', 'needs', 'matrix', 'strategy', 'steps', 'job', 'runner', 'inputs'];
const statusFunctions = (status: Status): FunctionDefinition[] => [
  { name: 'success', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(!status.failed) },
  { name: 'failure', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status.failed) },
  { name: 'always', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(true) },
  { name: 'cancelled', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(false) },
];

/** Evaluates one expression (the text inside `${{ }}`) with GitHub's library. */
export function evaluateExpression(expression: string, context: Context, status: Status = { failed: false }): Json {
  const functions = statusFunctions(status);
  const tree = new Parser(new Lexer(expression).lex().tokens, contextNames, functions).parse();
  const dictionary = JSON.parse(JSON.stringify(context), data.reviver) as data.Dictionary;
  const result = new Evaluator(tree, dictionary, new Map(functions.map((f) => [f.name.toLowerCase(), f]))).evaluate();
  return JSON.parse(JSON.stringify(result, data.replacer) ?? 'null') as Json;
}

/** A token's value: literals as they are, expressions (`${{ }}`, and strings with `${{ }}` in them, which the parser made `format(…)`) evaluated. */
export function evaluateToken(token: TemplateToken | undefined, context: Context, status?: Status): Json {
  if (token === undefined) return null;
  if (isBasicExpression(token)) return evaluateExpression(token.expression, context, status);
  if (isMapping(token)) {
    const out: Record<string, Json> = {};
    for (let i = 0; i < token.count; i++) {
      const { key, value } = token.get(i);
      out[String(evaluateToken(key, context, status))] = evaluateToken(value, context, status);
    }
    return out;
  }
  if (isSequence(token)) return [...token].map((item) => evaluateToken(item, context, status));
  return (token as unknown as { value: Json }).value ?? null;
}

/** How GitHub turns a value into a string (env values, inputs, outputs): booleans and numbers as their text, null as empty. */
const asString = (value: Json): string => (value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
const stringMap = (value: Json): Record<string, string> =>
  Object.fromEntries(Object.entries((value ?? {}) as Record<string, Json>).map(([k, v]) => [k, asString(v)]));
const truthy = (value: Json) => !(value === false || value === null || value === 0 || value === '');

// ---------------------------------------------------------------------------------------------------------------
// Matrices, as GitHub expands them: the product of the keys, `exclude` removed, `include` merged or added.

export function expandMatrix(matrix: Json): Record<string, Json>[] {
  if (matrix === null || typeof matrix !== 'object' || Array.isArray(matrix)) return [{}];
  const { include, exclude, ...vectors } = matrix as Record<string, Json>;
  let combos: Record<string, Json>[] = [{}];
  for (const [key, values] of Object.entries(vectors)) {
    if (!Array.isArray(values) || values.length === 0) throw new Error(`Matrix vector '${key}' does not contain any values`);
    combos = combos.flatMap((combo) => values.map((value) => ({ ...combo, [key]: value })));
  }
  const matches = (combo: Record<string, Json>, entry: Record<string, Json>) =>
    Object.entries(entry).every(([k, v]) => JSON.stringify(combo[k]) === JSON.stringify(v));
  if (Array.isArray(exclude)) combos = combos.filter((combo) => !exclude.some((e) => matches(combo, e as Record<string, Json>)));
  if (Object.keys(vectors).length === 0) combos = [];
  const original = combos.map((combo) => ({ ...combo }));
  for (const entry of (Array.isArray(include) ? include : []) as Record<string, Json>[]) {
    // Added to every original combination none of whose original values it overwrites; else a combination of its own.
    let added = false;
    for (const [i, base] of original.entries()) {
      const combo = combos[i]!;
      if (Object.entries(entry).every(([k, v]) => !(k in base) || JSON.stringify(base[k]) === JSON.stringify(v))) {
        Object.assign(combo, entry);
        added = true;
      }
    }
    if (!added) combos.push({ ...entry });
  }
  if (combos.length === 0) throw new Error('Matrix must define at least one vector');
  return combos;
}

// ---------------------------------------------------------------------------------------------------------------
// The run.

/** Actions the harness stands in for, by `owner/name` (the part of `uses` before `@`). */
const artifactActions = ['actions/upload-artifact', 'actions/download-artifact'];

export interface RunOptions {
  /** The repository's Git folder, which `actions/checkout` fetches from (real git). */
  repo: string;
  /** `owner/name` (GITHUB_REPOSITORY). */
  repository: string;
  eventName: string;
  /** The event payload (GITHUB_EVENT_PATH, `github.event`). */
  event: Record<string, Json>;
  sha: string;
  ref: string;
  runId: number;
  /** Repository secrets. */
  secrets: Record<string, string>;
  /** Environment secrets, by environment: a job with `environment: NAME` gets these, winning over the repository's. */
  environments?: Record<string, Record<string, string>>;
  vars?: Record<string, string>;
  /** The GitHub API the steps call (GITHUB_API_URL): the tests' stand-ins. */
  apiUrl: string;
  /** Where `uses: <actionRef>@…` is checked out: a folder with action.yml and its bundle. */
  action: { ref: string; path: string };
  /** Artifacts are kept under `<artifacts>/<runId>/<name>/`, where a later run's download step (or `gh run download`) finds them. */
  artifacts: string;
  /** The environment every step starts from (PATH, HOME…); GitHub's variables are added to it. */
  baseEnv: NodeJS.ProcessEnv;
  /** A folder for the run's job workspaces and temporary files. */
  temp: string;
  /** Jobs the harness does not run (a release's publish job), shown as skipped. */
  skipJobs?: string[];
  /** Scripts run instead of the named `run:` steps' (a release's `npm ci` and test suite, which the caller's own run already did). */
  standIns?: Record<string, string>;
}

export interface StepRun {
  id: string;
  name: string;
  /** `skipped` when its `if:` was false. */
  outcome: 'success' | 'failure' | 'skipped';
  code?: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  /** The composite action's own steps, for a step that used this repository's action. */
  steps?: StepRun[];
}

export interface JobRun {
  /** The job's id, and its matrix values when it has a matrix: `apply-wave-1 (staging)`. */
  name: string;
  id: string;
  matrix?: Record<string, Json>;
  environment?: string;
  concurrency?: Json;
  result: 'success' | 'failure' | 'skipped';
  outputs: Record<string, string>;
  steps: StepRun[];
  /** The job-level environment it ran with (workflow env, then job env), as the steps saw it. */
  env: Record<string, string>;
  summary: string;
}

export interface WorkflowRun {
  runId: number;
  jobs: JobRun[];
  /** The result of a job as `needs.<id>.result` gives it: a matrix job fails when any of its jobs failed. */
  result(id: string): 'success' | 'failure' | 'skipped';
  /** Every job of an id (one per matrix combination). */
  job(id: string): JobRun[];
  conclusion: 'success' | 'failure';
}

const jobResult = (runs: JobRun[]): 'success' | 'failure' | 'skipped' =>
  runs.some((r) => r.result === 'failure') ? 'failure' : runs.every((r) => r.result === 'skipped') ? 'skipped' : 'success';

export async function runWorkflow(workflow: ParsedWorkflow, options: RunOptions): Promise<WorkflowRun> {
  const jobs = workflow.template.jobs.filter((j): j is Job => j.type === 'job');
  const runs = new Map<string, JobRun[]>();
  const rawJobs = workflow.root.find('jobs') as MappingToken;
  const eventFile = join(options.temp, `event-${options.runId}.json`);
  writeFileSync(eventFile, JSON.stringify(options.event));
  const github: Record<string, Json> = {
    event_name: options.eventName,
    event: options.event,
    sha: options.sha,
    ref: options.ref,
    ref_name: options.ref.replace(/^refs\/(heads|tags)\//, ''),
    repository: options.repository,
    run_id: String(options.runId),
    run_attempt: '1',
    workflow: workflow.name,
    token: 'gh-test-token',
    api_url: options.apiUrl,
    actor: 'octocat',
  };
  const pending = [...jobs];
  while (pending.length > 0) {
    const index = pending.findIndex((job) => (job.needs ?? []).every((need) => runs.has(need.value)));
    if (index < 0) throw new Error(`jobs wait for each other: ${pending.map((j) => j.id.value).join(', ')}`);
    const [job] = pending.splice(index, 1) as [Job];
    const needs: Record<string, Json> = {};
    for (const need of job.needs ?? []) {
      const needRuns = runs.get(need.value)!;
      needs[need.value] = { result: jobResult(needRuns), outputs: Object.assign({}, ...needRuns.map((r) => r.outputs)) as Json };
    }
    runs.set(job.id.value, await runJob(job, rawJobs.find(job.id.value) as MappingToken, { github, needs, eventFile }, workflow, options));
  }
  const all = [...runs.values()].flat();
  return {
    runId: options.runId,
    jobs: all,
    result: (id) => jobResult(runs.get(id) ?? []),
    job: (id) => runs.get(id) ?? [],
    conclusion: all.some((j) => j.result === 'failure') ? 'failure' : 'success',
  };
}

interface RunContext {
  github: Record<string, Json>;
  needs: Record<string, Json>;
  eventFile: string;
}

async function runJob(job: Job, raw: MappingToken, run: RunContext, workflow: ParsedWorkflow, options: RunOptions): Promise<JobRun[]> {
  const id = job.id.value;
  const vars = (options.vars ?? {}) as Context;
  const base: Context = { github: run.github, needs: run.needs, vars, inputs: {} };
  // The job's `if:` sees no matrix; `success()` there means every needed job succeeded.
  const needsFailed = Object.values(run.needs).some((n) => (n as { result: string }).result !== 'success');
  const skipped = (): JobRun[] => [{ name: id, id, result: 'skipped', outputs: {}, steps: [], env: {}, summary: '' }];
  if (options.skipJobs?.includes(id) || !truthy(evaluateToken(job.if, base, { failed: needsFailed }))) return skipped();
  const strategy = (evaluateToken(job.strategy, base) ?? {}) as Record<string, Json>;
  const combos = strategy.matrix === undefined ? [undefined] : expandMatrix(strategy.matrix);
  const results: JobRun[] = [];
  for (const matrix of combos) {
    const context: Context = { ...base, matrix: matrix ?? {}, strategy: { 'fail-fast': strategy['fail-fast'] ?? true } };
    const environment = job.environment ? evaluateToken(job.environment, context) : undefined;
    const environmentName =
      environment && typeof environment === 'object' ? asString((environment as Context).name ?? null) : asString(environment ?? null);
    const secrets = { ...options.secrets, ...(environmentName ? options.environments?.[environmentName] : {}) };
    context.secrets = secrets;
    const name = matrix ? `${id} (${Object.values(matrix).map(asString).join(', ')})` : id;
    const concurrency = job.concurrency ? evaluateToken(job.concurrency, context) : undefined;
    results.push(await runSteps(job, raw, { id, name, matrix, environmentName, concurrency, context, run, workflow, options }));
  }
  return results;
}

interface JobSetup {
  id: string;
  name: string;
  matrix?: Record<string, Json>;
  environmentName: string | undefined;
  concurrency: Json | undefined;
  context: Context;
  run: RunContext;
  workflow: ParsedWorkflow;
  options: RunOptions;
}

async function runSteps(job: Job, raw: MappingToken, setup: JobSetup): Promise<JobRun> {
  const { context, options } = setup;
  const temp = mkdtempSync(join(options.temp, `${setup.id}-`));
  const workspace = join(temp, 'workspace');
  mkdirSync(workspace);
  mkdirSync(join(temp, 'runner-temp'));
  const summaryFile = join(temp, 'step-summary.md');
  writeFileSync(summaryFile, '');
  const env = {
    ...stringMap(evaluateToken(setup.workflow.template.env, context)),
  };
  Object.assign(env, stringMap(evaluateToken(job.env, { ...context, env })));
  const githubEnv: NodeJS.ProcessEnv = {
    ...options.baseEnv,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKFLOW: setup.workflow.name,
    GITHUB_JOB: setup.id,
    GITHUB_RUN_ID: String(options.runId),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: options.sha,
    GITHUB_REF: options.ref,
    GITHUB_REF_NAME: options.ref.replace(/^refs\/(heads|tags)\//, ''),
    GITHUB_REPOSITORY: options.repository,
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: setup.run.eventFile,
    GITHUB_API_URL: options.apiUrl,
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_ACTOR: 'octocat',
    RUNNER_TEMP: join(temp, 'runner-temp'),
  };
  const steps: Record<string, Json> = {};
  const stepRuns: StepRun[] = [];
  const status: Status = { failed: false };
  const rawSteps = raw.find('steps');
  if (!rawSteps || !isSequence(rawSteps)) throw new Error(`job ${setup.id} has no steps`);
  for (const [i, step] of job.steps.entries()) {
    const rawStep = rawSteps.get(i) as MappingToken;
    const stepContext = { ...context, env, steps, job: { status: status.failed ? 'failure' : 'success' } };
    const result = await runStep(step, rawStep, stepContext, status, { workspace, temp, githubEnv, env, options, summaryFile });
    stepRuns.push(result);
    // `continue-on-error: true`: the step's outcome is failure, its conclusion success, and the job goes on.
    const continues = result.outcome === 'failure' && truthy(evaluateToken(rawStep.find('continue-on-error'), stepContext));
    const conclusion = continues ? 'success' : result.outcome;
    if (step.id && !step.id.startsWith('__')) steps[step.id] = { outputs: result.outputs, outcome: result.outcome, conclusion };
    if (conclusion === 'failure') status.failed = true;
  }
  const outputs = stringMap(evaluateToken(job.outputs, { ...context, env, steps }));
  return {
    name: setup.name,
    id: setup.id,
    matrix: setup.matrix,
    environment: setup.environmentName || undefined,
    concurrency: setup.concurrency,
    result: status.failed ? 'failure' : 'success',
    outputs,
    steps: stepRuns,
    env,
    summary: readFileSync(summaryFile, 'utf8'),
  };
}

interface StepPlace {
  workspace: string;
  temp: string;
  githubEnv: NodeJS.ProcessEnv;
  /** The job's env (workflow, then job). */
  env: Record<string, string>;
  options: RunOptions;
  summaryFile: string;
}

const actionName = (uses: string) => uses.split('@')[0]!;

async function runStep(step: Step, raw: MappingToken, context: Context, status: Status, place: StepPlace): Promise<StepRun> {
  // Unnamed, a step is shown as GitHub shows it: `Run <action>` or `Run <its script's first line>`.
  const name =
    asString(evaluateToken((step as RunStep).name, context)) ||
    `Run ${'uses' in step ? (step as ActionStep).uses.value : asString((step as RunStep).run.toDisplayString()).split('\n')[0]}`;
  const skipped: StepRun = { id: step.id, name, outcome: 'skipped', stdout: '', stderr: '', outputs: {} };
  if (!truthy(evaluateToken((step as RunStep).if, context, status))) return skipped;
  const stepEnv = { ...place.env, ...stringMap(evaluateToken((step as RunStep).env, context)) };
  if ('run' in step) {
    const script = place.options.standIns?.[name] ?? asString(evaluateToken(step.run, { ...context, env: stepEnv }));
    const cwd = resolve(place.workspace, asString(evaluateToken(raw.find('working-directory'), context)) || '.');
    return { id: step.id, name, ...(await runScript(script, cwd, { ...place.githubEnv, ...stepEnv }, place.temp, step.id)) };
  }
  const uses = (step as ActionStep).uses.value;
  const inputs = stringMap(evaluateToken(raw.find('with'), { ...context, env: stepEnv }));
  const done = (outcome: StepRun['outcome'], stderr = ''): StepRun => ({ id: step.id, name, outcome, stdout: '', stderr, outputs: {} });
  switch (actionName(uses)) {
    case 'actions/checkout':
      checkout(place.options, place.workspace, inputs);
      return done('success');
    case 'actions/setup-node':
      return done('success');
    case 'actions/upload-artifact':
    case 'actions/download-artifact': {
      const problem = artifact(actionName(uses), inputs, place);
      return done(problem ? 'failure' : 'success', problem);
    }
    case actionName(place.options.action.ref): {
      const result = await runCompositeAction(place.options.action.path, inputs, context, stepEnv, place);
      return { id: step.id, name, ...result };
    }
    default:
      throw new Error(
        `the workflow harness does not stand in for ${uses} (it knows checkout, setup-node, ${artifactActions.join(', ')} and ${place.options.action.ref})`,
      );
  }
}

/** `actions/checkout`: the event's commit (or `with.ref`) fetched with real git, shallow unless `fetch-depth: 0`, as the action does. */
function checkout(options: RunOptions, workspace: string, inputs: Record<string, string>) {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: workspace, stdio: 'pipe', env: { ...options.baseEnv, GIT_TERMINAL_PROMPT: '0' } });
  const depth = inputs['fetch-depth'] ?? '1';
  const ref = inputs.ref || options.sha;
  git('init', '--quiet', '--initial-branch', 'main');
  git('remote', 'add', 'origin', options.repo);
  if (depth === '0') git('fetch', '--quiet', '--no-tags', 'origin', '+refs/heads/*:refs/remotes/origin/*', ref);
  else git('fetch', '--quiet', '--no-tags', `--depth=${depth}`, 'origin', ref);
  git('checkout', '--quiet', '--detach', 'FETCH_HEAD');
}

/** upload-artifact and download-artifact as folder copies under `<artifacts>/<runId>/<name>/`; an error text, or undefined. */
function artifact(action: string, inputs: Record<string, string>, place: StepPlace): string | undefined {
  const runFolder = join(place.options.artifacts, String(place.options.runId));
  if (action === 'actions/upload-artifact') {
    const source = resolve(place.workspace, inputs.path ?? '');
    const found = existsSync(source) && (!statSync(source).isDirectory() || readdirSync(source).length > 0);
    if (!found) {
      const ifNone = inputs['if-no-files-found'] || 'warn';
      return ifNone === 'error' ? `No files were found with the provided path: ${inputs.path}. No artifacts will be uploaded.` : undefined;
    }
    const target = join(runFolder, inputs.name || 'artifact');
    if (existsSync(target))
      return `Failed to CreateArtifact: an artifact with this name already exists on the workflow run: ${inputs.name}`;
    mkdirSync(target, { recursive: true });
    cpSync(source, statSync(source).isDirectory() ? target : join(target, source.split('/').at(-1)!), { recursive: true });
    return undefined;
  }
  const names = existsSync(runFolder) ? readdirSync(runFolder) : [];
  const pattern = inputs.pattern ? new RegExp(`^${inputs.pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`) : undefined;
  const chosen = inputs.name ? names.filter((n) => n === inputs.name) : names.filter((n) => !pattern || pattern.test(n));
  if (inputs.name && chosen.length === 0) return `Unable to download artifact(s): Artifact not found for name: ${inputs.name}`;
  const target = resolve(place.workspace, inputs.path ?? '.');
  for (const name of chosen) {
    const single = inputs.name !== undefined || inputs['merge-multiple'] === 'true';
    cpSync(join(runFolder, name), single ? target : join(target, name), { recursive: true });
  }
  mkdirSync(target, { recursive: true });
  return undefined;
}

/** A script step: bash, as GitHub runs `run:` (`bash --noprofile --norc -eo pipefail`), with its own $GITHUB_OUTPUT. */
async function runScript(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  temp: string,
  id: string,
): Promise<Omit<StepRun, 'id' | 'name'>> {
  const outputFile = join(mkdtempSync(join(temp, 'output-')), id);
  writeFileSync(outputFile, '');
  mkdirSync(cwd, { recursive: true });
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd,
    env: { ...env, GITHUB_OUTPUT: outputFile },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { outcome: code === 0 ? 'success' : 'failure', code, stdout, stderr, outputs: parseOutputs(readFileSync(outputFile, 'utf8')) };
}

/** This repository's action, as action.yml says: parsed by GitHub's parser, inputs with their defaults, its steps' `if:`s evaluated. */
async function runCompositeAction(
  actionPath: string,
  given: Record<string, string>,
  context: Context,
  stepEnv: Record<string, string>,
  place: StepPlace,
): Promise<Omit<StepRun, 'id' | 'name'>> {
  const parsed = parseAction(
    { name: 'action.yml', content: readFileSync(join(actionPath, 'action.yml'), 'utf8') },
    new NoOperationTraceWriter(),
  );
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (!parsed.value || errors.length) throw new Error(`action.yml is not a valid action:\n${errors.join('\n')}`);
  const action = convertActionTemplate(parsed.context, parsed.value);
  if (action.runs.using !== 'composite') throw new Error('the harness runs composite actions only');
  const github = { ...(context.github as Context), action_path: actionPath };
  const inputs: Record<string, string> = {};
  for (const input of action.inputs ?? [])
    inputs[input.id] = given[input.id] ?? asString(evaluateToken(input.default, { ...context, github }));
  const unknown = Object.keys(given).filter((k) => !(k in inputs));
  if (unknown.length) throw new Error(`action.yml has no input ${unknown.join(', ')}`);
  const rawSteps = (parsed.value as MappingToken).find('runs') as MappingToken;
  const rawList = rawSteps.find('steps');
  const steps: Record<string, Json> = {};
  const runs: StepRun[] = [];
  const status: Status = { failed: false };
  for (const [i, step] of action.runs.steps.entries()) {
    const raw = (rawList && isSequence(rawList) ? rawList.get(i) : undefined) as MappingToken;
    const stepContext: Context = { ...context, github, inputs, steps, env: stepEnv };
    const name = step.id;
    if (!truthy(evaluateToken((step as RunStep).if, stepContext, status))) {
      runs.push({ id: step.id, name, outcome: 'skipped', stdout: '', stderr: '', outputs: {} });
      continue;
    }
    let result: StepRun;
    if ('run' in step) {
      const env = { ...stepEnv, ...stringMap(evaluateToken((step as RunStep).env, stepContext)) };
      const cwd = resolve(place.workspace, asString(evaluateToken(raw.find('working-directory'), stepContext)) || '.');
      const script = asString(evaluateToken(step.run, { ...stepContext, env }));
      result = {
        id: step.id,
        name,
        ...(await runScript(script, cwd, { ...place.githubEnv, ...env, GITHUB_ACTION_PATH: actionPath }, place.temp, step.id)),
      };
    } else {
      const uses = (step as ActionStep).uses.value;
      if (actionName(uses) !== 'actions/setup-node') throw new Error(`action.yml uses ${uses}, which the harness does not stand in for`);
      result = { id: step.id, name, outcome: 'success', stdout: '', stderr: '', outputs: {} };
    }
    runs.push(result);
    steps[step.id] = { outputs: result.outputs, outcome: result.outcome, conclusion: result.outcome };
    if (result.outcome === 'failure') status.failed = true;
  }
  const outputs = Object.fromEntries(
    (action.outputs ?? []).map((o) => [o.id, asString(evaluateToken(o.value, { ...context, github, inputs, steps }))]),
  );
  return {
    outcome: status.failed ? 'failure' : 'success',
    stdout: runs.map((r) => r.stdout).join(''),
    stderr: runs.map((r) => r.stderr).join(''),
    outputs,
    steps: runs,
  };
}
