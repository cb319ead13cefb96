// A fake GitHub Actions runner for action.yml: runs its script steps with bash, as a composite action does,
// with temporary files for the step summary and outputs, and a stand-in for the comments API on 127.0.0.1.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { actionCopy } from '../helpers/action-bundle.js';
import { assertFreshBuild } from '../helpers/built-cli.js';

export const repoRoot = join(import.meta.dirname, '..', '..');

export interface ActionStep {
  id: string;
  if?: string;
  /** A script step has `shell` and `run`; a step that uses another action (setup-node) has `uses` and `with`. */
  shell?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  'working-directory'?: string;
}

interface Action {
  inputs: Record<string, { default?: string }>;
  runs: { steps: ActionStep[] };
}

const action = (actionPath = repoRoot): Action => parse(readFileSync(join(actionPath, 'action.yml'), 'utf8')) as Action;

export const actionSteps = (actionPath = repoRoot): ActionStep[] => action(actionPath).runs.steps;

/** `name<<DELIMITER ... DELIMITER` and `name=value` lines of $GITHUB_OUTPUT, later ones winning. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2] as string, i + 1);
      outputs[heredoc[1] as string] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return outputs;
}

export interface Comment {
  id: number;
  body: string;
  user: { login: string };
}

/** The tokens the stand-in knows: a workflow's GITHUB_TOKEN (writes as the Actions bot, cannot read /user) and a person's token. */
const tokenUsers: Record<string, { login: string; readsUser: boolean }> = {
  'Bearer gh-test-token': { login: 'github-actions[bot]', readsUser: false },
  'Bearer gh-pat-alice': { login: 'alice', readsUser: true },
};

/** The comments API of one repository, in memory. */
export interface CommentsApi {
  url: string;
  comments: Comment[];
  requests: string[];
  close(): Promise<void>;
}

export async function commentsApi(repository: string, pullRequest: number): Promise<CommentsApi> {
  const comments: Comment[] = [];
  const requests: string[] = [];
  let next = 1000;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(`${req.method} ${url.pathname}`);
      const send = (status: number, body?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body === undefined ? '' : JSON.stringify(body));
      };
      const user = tokenUsers[req.headers.authorization ?? ''];
      if (!user) return send(401, { message: 'Bad credentials' });
      if (req.method === 'GET' && url.pathname === '/user') {
        return user.readsUser
          ? send(200, { login: user.login, type: 'User' })
          : send(403, { message: 'Resource not accessible by integration' });
      }
      const list = `/repos/${repository}/issues/${pullRequest}/comments`;
      const one = new RegExp(`^/repos/${repository}/issues/comments/(\\d+)$`).exec(url.pathname);
      if (req.method === 'GET' && url.pathname === list) {
        const page = Number(url.searchParams.get('page') ?? 1);
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        return send(200, comments.slice((page - 1) * perPage, page * perPage));
      }
      if (req.method === 'POST' && url.pathname === list) {
        const body = (JSON.parse(text) as { body: string }).body;
        if (body.length > 65_536) return send(422, { message: 'Body is too long (maximum is 65536 characters)' });
        const comment = { id: next++, body, user: { login: user.login } };
        comments.push(comment);
        return send(201, comment);
      }
      const comment = one ? comments.find((c) => c.id === Number(one[1])) : undefined;
      if (!comment) return send(404, { message: 'Not Found' });
      // GitHub lets only the author edit a comment (and admins delete one): the stand-in lets anyone, to see what cplane tries.
      if (req.method === 'PATCH') {
        const body = (JSON.parse(text) as { body: string }).body;
        if (body.length > 65_536) return send(422, { message: 'Body is too long (maximum is 65536 characters)' });
        comment.body = body;
        return send(200, comment);
      }
      if (req.method === 'DELETE') {
        comments.splice(comments.indexOf(comment), 1);
        return send(204);
      }
      return send(405, { message: 'no' });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    comments,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

export interface Runner {
  workspace: string;
  summaryFile: string;
  outputFile: string;
  summary(): string;
  /** Runs one step of action.yml with `${{ }}` in its `env` and `working-directory` filled from `inputs`, `github` and earlier step outputs. */
  /** Sets the outputs of an earlier step, as if it had run. */
  setOutputs(id: string, outputs: Record<string, string>): void;
  step(
    id: string,
    inputs: Record<string, string>,
    env: NodeJS.ProcessEnv,
  ): Promise<{ code: number | null; stdout: string; stderr: string; outputs: Record<string, string> }>;
  close(): void;
}

/**
 * `actionPath` is where the action is checked out (github.action_path): by default a copy of what a release ships
 * (action.yml and the bundle built from the sources: test/helpers/action-bundle.ts), or a folder the test made.
 */
export function fakeRunner(given?: string): Runner {
  const temp = mkdtempSync(join(tmpdir(), 'cplane-gha-'));
  const actionPath = given ?? actionCopy(join(temp, 'action'));
  const workspace = join(temp, 'workspace');
  mkdirSync(workspace);
  mkdirSync(join(temp, 'runner-temp'));
  const summaryFile = join(temp, 'step_summary.md');
  writeFileSync(summaryFile, '');
  const stepOutputs: Record<string, Record<string, string>> = {};
  return {
    workspace,
    summaryFile,
    outputFile: join(temp, 'output'),
    summary: () => readFileSync(summaryFile, 'utf8'),
    setOutputs: (id, outputs) => {
      stepOutputs[id] = outputs;
    },
    async step(id, inputs, env) {
      // The tests import the built modules too; the action's steps run its bundle (action/dist/ under github.action_path).
      assertFreshBuild();
      const step = actionSteps(actionPath).find((s) => s.id === id)!;
      if (step.run === undefined) throw new Error(`step ${id} uses ${step.uses}: the fake runner runs only script steps`);
      const outputFile = join(temp, `output-${id}`);
      writeFileSync(outputFile, '');
      const context: Record<string, string> = { 'github.action_path': actionPath, 'github.token': 'gh-test-token' };
      // Inputs not given take their defaults, as GitHub fills them.
      for (const [name, input] of Object.entries(action(actionPath).inputs))
        context[`inputs.${name}`] = inputs[name] ?? (input.default ?? '').replace('${{ github.token }}', context['github.token']!);
      for (const [stepId, outputs] of Object.entries(stepOutputs))
        for (const [name, value] of Object.entries(outputs)) context[`steps.${stepId}.outputs.${name}`] = value;
      // `${{ a }}`, and `${{ a || b }}`: the first that is not empty, as GitHub's expressions give it.
      const fill = (text: string) =>
        text.replace(
          /\$\{\{\s*([\w.-]+(?:\s*\|\|\s*[\w.-]+)*)\s*\}\}/g,
          (_, names: string) =>
            names
              .split('||')
              .map((name) => context[name.trim()] ?? '')
              .find((value) => value !== '') ?? '',
        );
      const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, fill(v)]));
      const cwd = resolve(workspace, fill(step['working-directory'] ?? '.'));
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
        cwd,
        env: {
          ...env,
          ...stepEnv,
          GITHUB_WORKSPACE: workspace,
          GITHUB_STEP_SUMMARY: summaryFile,
          GITHUB_OUTPUT: outputFile,
          RUNNER_TEMP: join(temp, 'runner-temp'),
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((done) => child.on('close', done));
      const outputs = parseOutputs(readFileSync(outputFile, 'utf8'));
      stepOutputs[id] = outputs;
      return { code, stdout, stderr, outputs };
    },
    close: () => rmSync(temp, { recursive: true, force: true }),
  };
}

export interface Issue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  state_reason?: string;
  labels: string[];
  comments: string[];
  user: { login: string };
}

/** The issues API of one repository, in memory: list (open, by label), create, update, comment. */
export interface IssuesApi {
  url: string;
  issues: Issue[];
  requests: string[];
  close(): Promise<void>;
}

export async function issuesApi(repository: string): Promise<IssuesApi> {
  const issues: Issue[] = [];
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      const send = (status: number, body?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body === undefined ? '' : JSON.stringify(body));
      };
      const shown = (issue: Issue) => ({
        number: issue.number,
        title: issue.title,
        body: issue.body,
        state: issue.state,
        labels: issue.labels.map((name) => ({ name })),
        user: issue.user,
      });
      // The workflow's GITHUB_TOKEN: it writes as the Actions bot and may not read /user.
      if (req.headers.authorization !== 'Bearer gh-test-token') return send(401, { message: 'Bad credentials' });
      if (req.method === 'GET' && url.pathname === '/user') return send(403, { message: 'Resource not accessible by integration' });
      const list = `/repos/${repository}/issues`;
      const one = new RegExp(`^/repos/${repository}/issues/(\\d+)(/comments)?$`).exec(url.pathname);
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      if (typeof body.body === 'string' && body.body.length > 65_536)
        return send(422, { message: 'body is too long (maximum is 65536 characters)' });
      if (req.method === 'GET' && url.pathname === list) {
        const state = url.searchParams.get('state') ?? 'open';
        const label = url.searchParams.get('labels');
        const page = Number(url.searchParams.get('page') ?? 1);
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        const found = issues.filter((i) => (state === 'all' || i.state === state) && (!label || i.labels.includes(label)));
        return send(200, found.slice((page - 1) * perPage, page * perPage).map(shown));
      }
      if (req.method === 'POST' && url.pathname === list) {
        const issue: Issue = {
          number: issues.length + 1,
          title: String(body.title),
          body: String(body.body ?? ''),
          state: 'open',
          labels: (body.labels as string[] | undefined) ?? [],
          comments: [],
          user: { login: 'github-actions[bot]' },
        };
        issues.push(issue);
        return send(201, shown(issue));
      }
      const issue = one ? issues.find((i) => i.number === Number(one[1])) : undefined;
      if (!issue) return send(404, { message: 'Not Found' });
      if (req.method === 'POST' && one?.[2]) {
        issue.comments.push(String(body.body));
        return send(201, { id: issue.comments.length, body: body.body });
      }
      if (req.method === 'PATCH' && !one?.[2]) {
        if (typeof body.body === 'string') issue.body = body.body;
        if (body.state === 'closed' || body.state === 'open') issue.state = body.state;
        if (typeof body.state_reason === 'string') issue.state_reason = body.state_reason;
        return send(200, shown(issue));
      }
      return send(405, { message: 'no' });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    issues,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** The environment of a pull-request job in `runner`'s workspace, with its event file written beside the workspace. */
export function pullRequestJobEnv(
  runner: Runner,
  job: { emulatorUrl: string; token: string; stateKeyByte: number; apiUrl: string; repository: string; pullRequest: number },
): NodeJS.ProcessEnv {
  const event = join(runner.workspace, '..', 'event.json');
  writeFileSync(event, JSON.stringify({ pull_request: { number: job.pullRequest } }));
  return {
    PATH: process.env.PATH,
    HOME: runner.workspace,
    NO_COLOR: '1',
    CPLANE_BASE_URL: job.emulatorUrl,
    CPLANE_TOKEN: job.token,
    CPLANE_STATE_KEY: Buffer.alloc(32, job.stateKeyByte).toString('base64'),
    GITHUB_API_URL: job.apiUrl,
    GITHUB_REPOSITORY: job.repository,
    GITHUB_EVENT_PATH: event,
    GITHUB_EVENT_NAME: 'pull_request',
  };
}
