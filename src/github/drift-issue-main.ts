/**
 * The drift-issue step of action.yml: `node action/dist/drift-issue.mjs`, this file bundled (scripts/bundle-action.mjs).
 * Everything comes from the environment (never from `${{ }}` inside the
 * script): GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, and the step
 * outputs of `cplane drift --github`: CPLANE_HAS_DRIFT, CPLANE_MARKDOWN_FILE,
 * CPLANE_ISSUE_KEY; after `cplane reconcile --github` also CPLANE_ISSUE_TOPIC=reconcile (its own issue, where
 * CPLANE_HAS_DRIFT says whether steps wait for a person). GITHUB_SERVER_URL and GITHUB_RUN_ID, when set, link the run.
 */
import { readFileSync } from 'node:fs';
import { issueTopics, syncDriftIssue, type IssueTopic } from './drift-issue.js';

async function main(env: NodeJS.ProcessEnv): Promise<number> {
  const missing = ['GITHUB_TOKEN', 'GITHUB_REPOSITORY', 'CPLANE_HAS_DRIFT', 'CPLANE_MARKDOWN_FILE', 'CPLANE_ISSUE_KEY'].filter((name) => !env[name]);
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
  const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
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
  process.stdout.write(result.action === 'none' ? `No ${topic === 'drift' ? 'drift' : 'step waiting for a person'} for ${env.CPLANE_ISSUE_KEY}, and no open ${noun} issue.\n` : `${noun === 'drift' ? 'Drift' : 'Reconcile'} issue #${result.number} for ${env.CPLANE_ISSUE_KEY}: ${result.action}.\n`);
  return 0;
}

main(process.env).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`::error::cplane drift issue failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
