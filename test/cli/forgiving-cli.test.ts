/**
 * The command line forgives and teaches: `cplane state` lists its subcommands, `cplane help <command>` is
 * `<command> --help`, typos of commands, subcommands and flags get the closest name, and `--version` is
 * the package's. Run in-process through runCli (the same entry the binary uses) with captured output.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { runCli } from '../../src/cli/main.js';
import { builtCli } from '../helpers/built-cli.js';

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: {},
    cwd: process.cwd(),
    stdout: { write: (text: string) => ((stdout += text), true) } as unknown as NodeJS.WritableStream,
    stderr: { write: (text: string) => ((stderr += text), true) } as unknown as NodeJS.WritableStream,
    stdin: process.stdin,
  });
  return { code, stdout, stderr };
}

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

describe('help', () => {
  it('`cplane state` alone lists its subcommands', async () => {
    expect(await cli('state')).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'Usage: cplane state <subcommand> [options]',
        '',
        'Look at and repair the state without touching remote objects.',
        '',
        'Subcommands:',
        '  list     List the addresses in the state, with their kind and remote id',
        "  plans    List the open plans registered with the state (each PR's saved plan), or forget a closed PR's",
        '  show     Show what the state holds for one address (never a secret)',
        '  rm       Forget an address: cplane stops managing it; the remote object is not touched',
        '  mv       Rename an address in the state, keeping its remote object',
        '  history  List the saved versions of a PostgreSQL state: serial, time, who, command',
        '  pull     Print the current state as a state file (sealed values stay sealed)',
        '  push     Replace the state with a state file of the same lineage and a newer serial',
        '  migrate  Copy the state to another location: a local file to PostgreSQL, or back',
        '',
        'Run `cplane state <subcommand> --help` for the options of one.',
        '',
      ].join('\n'),
    });
    expect(await cli('state', '--help')).toEqual(await cli('state'));
    expect(await cli('help', 'state')).toEqual(await cli('state'));
  });

  it("every command's --help lists each flag once (run listed --account and --deployment twice)", async () => {
    const twice: string[] = [];
    for (const command of commands) {
      const { stdout } = await cli(...command.name, '--help');
      const flags = [...stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!);
      for (const flag of new Set(flags)) if (flags.filter((f) => f === flag).length > 1) twice.push(`${command.name.join(' ')} ${flag}`);
    }
    expect(twice).toEqual([]);
    const run = (await cli('run', '--help')).stdout;
    expect(run).toContain("--deployment NAME   with --manifest: the manifest's deployment");
    expect(run).toContain("the deployment of the configuration's deployments: to use");
  });

  it('`cplane help <command>` prints exactly `<command> --help`', async () => {
    const plan = await cli('plan', '--help');
    expect(plan.code).toBe(0);
    expect(plan.stdout.split('\n').slice(0, 3)).toEqual([
      'Usage: cplane plan [dir] [--out FILE] [--pr N --commit SHA] [--target ADDRESS ... | --exclude ADDRESS ...] [--replace ADDRESS ...] [--refresh-only] [--destroy] [--detailed-exitcode] [--parallelism N] [--json | --markdown] [--format github] [--github] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
      '',
      'Show what apply would change, and why',
    ]);
    expect(await cli('help', 'plan')).toEqual(plan);
    expect(await cli('help', 'state', 'list')).toEqual(await cli('state', 'list', '--help'));
    expect((await cli('state', 'list', '--help')).stdout).toContain(
      '--var-file FILE     read variables from a YAML file (repeatable); with --var, the last one given wins\n',
    );
  });

  it('`destroy --help` says --target removes what depends on ADDRESS (apply keeps what ADDRESS depends on), and the README lists it', async () => {
    const destroy = (await cli('destroy', '--help')).stdout;
    expect(destroy).toContain('  --target ADDRESS    remove only ADDRESS and what depends on it (repeatable)\n');
    expect(destroy).toContain(
      '  --exclude ADDRESS   keep ADDRESS (or module.NAME) and the objects it needs; not with --target (repeatable)\n',
    );
    expect(destroy).not.toContain('what it depends on');
    expect((await cli('apply', '--help')).stdout).toContain(
      '  --target ADDRESS    limit the run to ADDRESS and what it depends on (repeatable)\n',
    );
    expect(readFileSync('README.md', 'utf8')).toContain(
      '| `cplane destroy [dir] [--auto-approve] [--target ADDR ... \\| --exclude ADDR ...]` |',
    );
  });

  it('`cplane`, `cplane --help` and `cplane help` print the global help, which names `cplane help <command>`', async () => {
    const global = await cli();
    expect(global.code).toBe(0);
    // The names are padded to the longest command's.
    expect(global.stdout).toMatch(/\n {2}state list {2,}List the addresses in the state, with their kind and remote id\n/);
    expect(global.stdout).toContain('Run `cplane <command> --help` (or `cplane help <command>`) for the options of one command.\n');
    expect(await cli('--help')).toEqual(global);
    expect(await cli('help')).toEqual(global);
  });
});

describe('did you mean', () => {
  it('suggests the closest command', async () => {
    expect(await cli('pla')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: unknown command "pla"; did you mean "plan"?\nRun `cplane --help` to see the commands.\n',
    });
    expect(await cli('stat', 'list')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: unknown command "stat"; did you mean "state"?\nRun `cplane --help` to see the commands.\n',
    });
    expect(await cli('help', 'valdate')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: unknown command "valdate"; did you mean "validate"?\nRun `cplane --help` to see the commands.\n',
    });
  });

  it('suggests the closest subcommand', async () => {
    expect(await cli('state', 'lst')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: unknown command "state lst"; did you mean "state list"?\nRun `cplane state` to see its subcommands.\n',
    });
  });

  it('says plainly when nothing is close', async () => {
    expect(await cli('frobnicate')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: unknown command "frobnicate".\nRun `cplane --help` to see the commands.\n',
    });
  });

  it('suggests the closest flag of the command instead of the parser message', async () => {
    expect(await cli('apply', '--auto-aprove')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: unknown flag --auto-aprove for `cplane apply`; did you mean --auto-approve?\nRun `cplane apply --help` for the options.\n',
    });
    expect(await cli('state', 'list', '--acount', 'x')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: unknown flag --acount for `cplane state list`; did you mean --account?\nRun `cplane state list --help` for the options.\n',
    });
    expect(await cli('validate', '--zzz')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: unknown flag --zzz for `cplane validate`.\nRun `cplane validate --help` for the options.\n',
    });
  });
});

describe('version', () => {
  it('prints the version of package.json, in-process and from the built binary', async () => {
    expect(await cli('--version')).toEqual({ code: 0, stdout: `cplane ${version}\n`, stderr: '' });
    const run = spawnSync(process.execPath, [builtCli(), '--version'], { encoding: 'utf8' });
    expect(run.stdout).toBe(`cplane ${version}\n`);
  });
});
