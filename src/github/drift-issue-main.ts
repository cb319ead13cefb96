/**
 * The drift-issue step of action.yml: `node action/dist/drift-issue.mjs`, this file bundled (scripts/bundle-action.mjs).
 * Everything comes from the environment (never from `${{ }}` inside the
 * script): GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, and the step
 * outputs of `cplane drift --github`: CPLANE_HAS_DRIFT, CPLANE_MARKDOWN_FILE,
 * CPLANE_ISSUE_KEY; after `cplane reconcile --github` also CPLANE_ISSUE_TOPIC=reconcile (its own issue, where
 * CPLANE_HAS_DRIFT says whether steps wait for a person). GITHUB_SERVER_URL and GITHUB_RUN_ID, when set, link the run.
 * After `--all --github`, CPLANE_ISSUES (the `issues` output) lists one issue per deployment instead, each kept as above.
 */
import { readFileSync } from 'node:fs';
import { issueTopics, syncDriftIssue, type IssueTopic } from './drift-issue.js';

/** One issue to keep: a deployment's, from the `issues` output of `--all --github` (cli/deployments/each.ts). */
interface IssueJob {
  key: string;
  topic: string;
  open: boolean;
  markdownFile: string;
}

/** The issues of `cplane drift --all --github` or `reconcile --all --github`: one per deployment, each kept as one run's. */
function issueJobs(text: string): IssueJob[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const valid = (job: unknown): job is IssueJob => {
    const j = job as Partial<IssueJob>;
    return (
      typeof job === 'object' &&
      job !== null &&
      typeof j.key === 'string' &&
      typeof j.topic === 'string' &&
      typeof j.open === 'boolean' &&
      typeof j.markdownFile === 'string'
    );
  };
  return Array.isArray(parsed) && parsed.every(valid) ? parsed : undefined;
}

async function main(env: NodeJS.ProcessEnv): Promise<number> {
  if (env.CPLANE_ISSUES) {
    const jobs = issueJobs(env.CPLANE_ISSUES);
    if (!jobs) {
      process.stderr.write(
        '::error::cplane issue: CPLANE_ISSUES is not the issues output of `cplane drift --all --github` or `cplane reconcile --all --github`\n',
      );
      return 1;
    }
    let code = 0;
    // One deployment's issue that cannot be kept does not keep the others from being kept.
    for (const job of jobs) {
      const one = await main({
        ...env,
        CPLANE_ISSUES: '',
        CPLANE_ISSUE_KEY: job.key,
        CPLANE_ISSUE_TOPIC: job.topic,
        CPLANE_HAS_DRIFT: String(job.open),
        CPLANE_MARKDOWN_FILE: job.markdownFile,
      }).catch((error: unknown) => {
        process.stderr.write(`::error::cplane issue for ${job.key} failed: ${error instanceof Error ? error.message : String(error)}\n`);
        return 1;
      });
      code ||= one;
    }
    return code;
  }
  const missing = ['GITHUB_TOKEN', 'GITHUB_REPOSITORY', 'CPLANE_HAS_DRIFT', 'CPLANE_MARKDOWN_FILE', 'CPLANE_ISSUE_KEY'].filter(
    (name) => !env[name],
  );
  if (missing.length > 0) {
    process.stderr.write(`::error::cplane drift issue: ${missing.join(', ')} not set\n`);
    return 1;
  }
  // `cplane reconcile --github` names its topic; `cplane drift --github` names none.
  const topic = (env.CPLANE_ISSUE_TOPIC || 'drift') as IssueTopic;
  if (!Object.hasOwn(issueTopics, topic)) {
    process.stderr.write(`::error::cplane issue: CPLANE_ISSUE_TOPIC must be one of ${Object.keys(issueTopics).join(', ')}\n`);
    return 1;
  }
  const runUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
      : undefined;
  const result = await syncDriftIssue({
    apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
    repository: env.GITHUB_REPOSITORY!,
    token: env.GITHUB_TOKEN!,
    key: env.CPLANE_ISSUE_KEY!,
    topic,
    hasDrift: env.CPLANE_HAS_DRIFT === 'true',
    markdown: readFileSync(env.CPLANE_MARKDOWN_FILE!, 'utf8'),
    ...(runUrl ? { runUrl } : {}),
  });
  const noun = topic === 'drift' ? 'drift' : 'reconcile';
  process.stdout.write(
    result.action === 'none'
      ? `No ${topic === 'drift' ? 'drift' : 'step waiting for a person'} for ${env.CPLANE_ISSUE_KEY}, and no open ${noun} issue.\n`
      : `${noun === 'drift' ? 'Drift' : 'Reconcile'} issue #${result.number} for ${env.CPLANE_ISSUE_KEY}: ${result.action}.\n`,
  );
  return 0;
}

main(process.env).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`::error::cplane drift issue failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
