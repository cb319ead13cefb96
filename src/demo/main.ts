/**
 * `npm start`: the whole tool in one command, with no account. Starts the
 * embedded emulator on a free port, applies examples/quickstart to its first
 * account with the real CLI (so what you see is what a user sees), shows that
 * a second plan has nothing to do and what `cplane output` says about a
 * token, then stops the emulator, and says what to run next (`cplane emulator`,
 * `cplane init`). Everything it writes goes to a temporary folder that is
 * removed at the end. The README's "Demo output" is what it prints
 * (test/demo/npm-start.test.ts compares them).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { packageFile } from '../package-files.js';
import { startEmulator } from '../emulator/index.js';
import { fixtures } from '../emulator/fixtures.js';
import { painter } from '../paint.js';

const root = packageFile();
const example = packageFile('examples', 'quickstart');
const bin = packageFile('bin', 'cplane.js');

/** KEY=VALUE lines; `#` starts a comment line. */
function readEnvFile(path: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const at = line.indexOf('=');
    if (line.trim().startsWith('#') || at <= 0) continue;
    values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return values;
}

const paint = painter(process.stdout.isTTY === true && !process.env.NO_COLOR);
const bold = (text: string) => paint('bold', text);

function heading(text: string): void {
  process.stdout.write(`\n${bold(`== ${text}`)}\n\n`);
}

/** Runs the CLI as a subprocess with the terminal as its output; resolves with its exit code. */
function cplane(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  process.stdout.write(`$ cplane ${args.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const emulator = await startEmulator({ latencyMs: 15 });
  const temp = mkdtempSync(join(tmpdir(), 'cplane-demo-'));
  const account = fixtures.accounts[0]!;
  const statePath = join(temp, 'state.json');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...readEnvFile(join(example, 'demo.env')),
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    XDG_CONFIG_HOME: join(temp, 'config'),
    // A key for this run only: the state is thrown away at the end, so no key file is made (or announced).
    CPLANE_STATE_KEY: randomBytes(32).toString('base64'),
  };
  const dir = relative(root, example);
  const common = [dir, '--account', account.id, '--state', statePath];
  try {
    process.stdout.write(
      `cplane demo: an emulator of the control-plane API is running at ${emulator.url}\n` +
        `(account "${account.name}", the fixture admin token; secrets from ${dir}/demo.env; state in a temporary folder).\n`,
    );
    heading(`1. Apply ${dir}`);
    const applied = await cplane(['apply', ...common, '--auto-approve'], env);
    if (applied !== 0) return applied;
    heading('2. Plan again: everything is in place');
    const planned = await cplane(['plan', ...common], env);
    if (planned !== 0) return planned;
    heading('3. The gateway tokens (plaintext stays sealed in state until you ask for it with --reveal)');
    const output = await cplane(['output', dir, '--account', account.id, '--state', statePath], env);
    if (output !== 0) return output;
    heading('Done');
    const next = [
      ['npx cplane emulator', 'run this emulator yourself (http://127.0.0.1:4010; --print-fixtures lists its tokens)'],
      [`npx cplane init ${dir}`, 'make the state key, check where the state goes, list the variables to set'],
    ];
    const width = Math.max(...next.map(([command]) => command!.length));
    process.stdout.write(
      `Next:\n${next.map(([command, what]) => `  ${command!.padEnd(width)}  ${what}\n`).join('')}` +
        'Then, against the emulator or your own account: set CPLANE_BASE_URL, CPLANE_TOKEN and CPLANE_ACCOUNT, and run `npx cplane plan <dir>`.\n',
    );
    return 0;
  } finally {
    await emulator.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

process.exitCode = await main();
