/**
 * The comment step of action.yml: `node action/dist/pr-comment.mjs`, this file bundled (scripts/bundle-action.mjs).
 * Everything comes from the environment (never from `${{ }}` inside the
 * script): GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH
 * (the pull request's number), CPLANE_MARKDOWN_FILE and CPLANE_COMMENT_KEY
 * (both step outputs of `cplane plan --github`).
 */
import { readFileSync } from 'node:fs';
import { upsertPlanComments } from './pr-comment.js';

async function main(env: NodeJS.ProcessEnv): Promise<number> {
  const missing = ['GITHUB_TOKEN', 'GITHUB_REPOSITORY', 'GITHUB_EVENT_PATH', 'CPLANE_MARKDOWN_FILE', 'CPLANE_COMMENT_KEY'].filter(
    (name) => !env[name],
  );
  if (missing.length > 0) {
    process.stderr.write(`::error::cplane comment: ${missing.join(', ')} not set\n`);
    return 1;
  }
  const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH!, 'utf8')) as { pull_request?: { number?: number } };
  const pullRequest = event.pull_request?.number;
  if (!Number.isInteger(pullRequest)) {
    process.stdout.write('Not a pull request: no plan comment.\n');
    return 0;
  }
  const result = await upsertPlanComments({
    apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
    repository: env.GITHUB_REPOSITORY!,
    pullRequest: pullRequest!,
    token: env.GITHUB_TOKEN!,
    key: env.CPLANE_COMMENT_KEY!,
    markdown: readFileSync(env.CPLANE_MARKDOWN_FILE!, 'utf8'),
  });
  process.stdout.write(
    `Plan comment for ${env.CPLANE_COMMENT_KEY}: ${result.created} created, ${result.updated} updated, ${result.deleted} deleted.\n`,
  );
  return 0;
}

main(process.env).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`::error::cplane comment failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
