// The approval prompt and the end-of-apply summary, as a user sees them.
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/applier/index.js';
import { ApplySummary, ConfirmInput, loadInk, ConfirmPrompt, summaryLines } from '../../src/ui/index.js';

// The components take Ink from the loader, as they do in the CLI.
beforeAll(loadInk);

const plain = (text: string | undefined) => stripVTControlCharacters(text ?? '');

const result: ApplyResult = {
  done: [
    { stepId: 'project.a', address: 'project.a', kind: 'project', action: 'create', id: 'p-1', durationMs: 100, sealed: [] },
    {
      stepId: 'gateway_token.g/ci',
      address: 'gateway_token.g/ci',
      kind: 'gateway_token',
      action: 'create',
      id: 't-1',
      durationMs: 100,
      sealed: ['plaintext'],
    },
  ],
  failed: [
    {
      stepId: 'gateway.g2',
      address: 'gateway.g2',
      kind: 'gateway',
      action: 'create',
      reason: 'createGateway failed: 400 bad_request (invalid slug).',
      status: 400,
      requestId: 'req-9',
    },
  ],
  skipped: [
    {
      stepId: 'gateway_token.g2/x',
      address: 'gateway_token.g2/x',
      kind: 'gateway_token',
      action: 'create',
      cause: 'dependency-failed',
      after: 'gateway.g2',
    },
  ],
  interrupted: false,
  durationMs: 2500,
};

describe('ConfirmPrompt', () => {
  it('asks for yes and shows what was typed', () => {
    const { lastFrame } = render(<ConfirmPrompt question="Do you want to perform these actions?" value="ye" />);
    expect(plain(lastFrame())).toMatchInlineSnapshot(`
      "
      Do you want to perform these actions?
        Only 'yes' will be accepted to approve.
        Enter a value: ye"
    `);
  });
});

describe('ConfirmInput', () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('answers what was typed when Enter is pressed, with backspace applied', async () => {
    const answers: string[] = [];
    const { stdin, lastFrame } = render(<ConfirmInput question="Proceed?" onAnswer={(v) => answers.push(v)} />);
    await tick();
    for (const key of ['y', 'e', 'p', '\x7f', 's']) {
      stdin.write(key);
      await tick();
    }
    expect(plain(lastFrame())).toContain('Enter a value: yes');
    stdin.write('\r');
    await tick();
    expect(answers).toEqual(['yes']);
  });

  it('answers when the keys and Enter arrive in one chunk (pasted, or typed by a program)', async () => {
    const answers: string[] = [];
    const { stdin, lastFrame } = render(<ConfirmInput question="Proceed?" onAnswer={(v) => answers.push(v)} />);
    await tick();
    stdin.write('ye');
    await tick();
    expect(plain(lastFrame())).toContain('Enter a value: ye');
    stdin.write('s\r');
    await tick();
    expect(answers).toEqual(['yes']);
  });

  it('answers nothing on Esc', async () => {
    const answers: string[] = [];
    const { stdin } = render(<ConfirmInput question="Proceed?" onAnswer={(v) => answers.push(v)} />);
    await tick();
    stdin.write('y');
    await tick();
    stdin.write('\x1b');
    await tick();
    expect(answers).toEqual(['']);
  });
});

describe('summary', () => {
  it('lists failures with request id, skips with their cause, and tokens by reveal command only', () => {
    const { lastFrame } = render(<ApplySummary lines={summaryLines(result, 'Apply')} />);
    expect(plain(lastFrame())).toMatchInlineSnapshot(`
      "
      Apply finished with errors: 2 done, 1 failed, 1 skipped (2.5s).
      Failed:
        gateway.g2 (create): createGateway failed: 400 bad_request (invalid slug). [request id req-9]
      Skipped:
        gateway_token.g2/x (create): depends on gateway.g2, which failed
      New gateway tokens (the API shows them once; kept sealed in state):
        gateway_token.g/ci: cplane output gateway_token.g/ci --reveal
      State holds everything that finished. Run the command again to continue: pending writes are resent
      with their saved keys."
    `);
  });

  it('says complete when nothing failed, and interrupted after Ctrl-C', () => {
    expect(summaryLines({ ...result, failed: [], skipped: [] }, 'Destroy')[0]).toEqual({
      text: 'Destroy complete: 2 done, 0 failed, 0 skipped (2.5s).',
      tone: 'ok',
    });
    expect(summaryLines({ ...result, failed: [], interrupted: true }, 'Apply')[0]?.text).toBe(
      'Apply interrupted: 2 done, 0 failed, 1 skipped (2.5s).',
    );
  });
});
