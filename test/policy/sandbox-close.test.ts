// The policy worker while it is being stopped: a plan that needed no rule closes the sandbox before it has read the
// worker's `ready`, which can then arrive during close(). It once unref'd the worker there, so Node saw nothing left
// to wait for and ended the CLI with its plan unprinted and exit code 0 (policy-apply's "does not judge a removal",
// on a loaded machine). A process is the subject (when Node exits), so the sandbox runs in a child, built.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { builtModule } from '../helpers/built-cli.js';

it('close() keeps the process alive until the worker has exited, even when a message arrives meanwhile', () => {
  const sandbox = pathToFileURL(builtModule('policy/sandbox.js')).href;
  // The message is delivered by hand right after close() starts, where the machine's load once put `ready`.
  const child = `
    const { Sandbox } = await import(${JSON.stringify(sandbox)});
    const sandbox = new Sandbox(['true']);
    const closed = sandbox.close();
    sandbox.worker.emit('message', { ready: true });
    await closed;
    console.log('closed');`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', `(async () => {${child}})()`], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.stdout).toBe('closed\n');
  expect(run.status).toBe(0);
});
