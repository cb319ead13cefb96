// Anyone can paste cplane's hidden marker into a pull-request comment. The comment step (pr-comment-main.js, as
// action.yml runs it, against a stand-in for GitHub's API over HTTP) edits and deletes only the comments its own
// token wrote: with the workflow's GITHUB_TOKEN, the Actions bot's; with a person's token, that person's.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { markerOf } from '../../src/github/comment-parts.js';
import { commentsApi, fakeRunner, type CommentsApi, type Runner } from './fake-github.js';

const key = 'infra:acc_1@default';
let api: CommentsApi;
let runner: Runner;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  api = await commentsApi('acme/infra', 7);
  runner = fakeRunner();
  const event = join(runner.workspace, '..', 'event.json');
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  const markdown = join(runner.workspace, 'plan.md');
  writeFileSync(markdown, '#### cplane plan\n\n**Plan: 1 to add, 0 to change, 0 to replace, 0 to remove.**\n');
  runner.setOutputs('cplane', { markdown_file: markdown, comment_key: key });
  env = {
    PATH: process.env.PATH,
    GITHUB_API_URL: api.url,
    GITHUB_REPOSITORY: 'acme/infra',
    GITHUB_EVENT_PATH: event,
    GITHUB_EVENT_NAME: 'pull_request',
  };
});
afterEach(async () => {
  runner.close();
  await api.close();
});

/** Comments other people wrote, each carrying the marker of this configuration (parts 0 and 1). */
function plantForeignComments(): void {
  api.comments.push(
    { id: 1, body: `${markerOf(key, 0)}\nattacker's text`, user: { login: 'mallory' } },
    { id: 2, body: `${markerOf(key, 1)}\nanother user's part two`, user: { login: 'bob' } },
  );
}

it('with the workflow token, leaves comments of other users alone and writes its own', async () => {
  plantForeignComments();
  const run = await runner.step('comment', { 'github-token': 'gh-test-token' }, env);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`Plan comment for ${key}: 1 created, 0 updated, 0 deleted.`);
  expect(api.comments.find((c) => c.id === 1)!.body).toBe(`${markerOf(key, 0)}\nattacker's text`);
  expect(api.comments.find((c) => c.id === 2)!.body).toBe(`${markerOf(key, 1)}\nanother user's part two`);
  expect(api.requests.filter((r) => !r.startsWith('GET'))).toEqual(['POST /repos/acme/infra/issues/7/comments']);
  const mine = api.comments.find((c) => c.user.login === 'github-actions[bot]')!;
  expect(mine.body).toContain('**Plan: 1 to add');

  // The next run updates its own comment, still never the others.
  writeFileSync(join(runner.workspace, 'plan.md'), '#### cplane plan\n\n**No changes.**\n');
  const again = await runner.step('comment', { 'github-token': 'gh-test-token' }, env);
  expect(again.stdout).toContain(`Plan comment for ${key}: 0 created, 1 updated, 0 deleted.`);
  expect(api.requests.filter((r) => r.startsWith('PATCH'))).toEqual([`PATCH /repos/acme/infra/issues/comments/${mine.id}`]);
});

it("with a person's token, counts that person's comments (and the Actions bot's) and no one else's", async () => {
  plantForeignComments();
  api.comments.push({ id: 3, body: `${markerOf(key, 0)}\nalice's old plan`, user: { login: 'alice' } });
  api.comments.push({ id: 4, body: `${markerOf(key, 1)}\nthe bot's old part two`, user: { login: 'github-actions[bot]' } });
  const run = await runner.step('comment', { 'github-token': 'gh-pat-alice' }, env);
  expect(run.stdout).toContain(`Plan comment for ${key}: 0 created, 1 updated, 1 deleted.`);
  expect(api.requests.filter((r) => !r.startsWith('GET'))).toEqual([
    'PATCH /repos/acme/infra/issues/comments/3',
    'DELETE /repos/acme/infra/issues/comments/4',
  ]);
  expect(api.comments.map((c) => c.id)).toEqual([1, 2, 3]);
});
