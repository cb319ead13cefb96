/**
 * Every flag a command accepts is one its help names and one it uses: a flag no help lists is either dead or a
 * surprise (`compare A B --account X` was accepted, then refused as "cannot be used with --all or --deployment").
 */
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { runCli } from '../../src/cli/main.js';

async function cli(...argv: string[]) {
  let stderr = '';
  const sink = { write: () => true } as unknown as NodeJS.WritableStream;
  const code = await runCli(argv, {
    env: {},
    cwd: process.cwd(),
    stdout: sink,
    stderr: { write: (text: string) => ((stderr += text), true) } as unknown as NodeJS.WritableStream,
    stdin: process.stdin,
  });
  return { code, stderr };
}

describe('every accepted flag is in its command’s help', () => {
  for (const command of commands) {
    const name = command.name.join(' ');
    it(`cplane ${name}`, () => {
      const help = [command.usage, ...(command.help ?? [])].join('\n');
      const missing = Object.keys(command.options).filter((flag) => !new RegExp(`(^|[\\s\\[|(])--${flag}(?![\\w-])`, 'm').test(help));
      expect(missing, `cplane ${name} accepts ${missing.map((f) => `--${f}`).join(', ')} but its help does not name it`).toEqual([]);
    });
  }
});

describe('a flag a command does not use is refused as unknown, before anything runs', () => {
  it.each([
    ['compare', 'a', 'b', '--account', 'acct_1'],
    ['read', 'record.p/r', '--parallelism', '4'],
    ['run', '--parallelism', '4', '--', 'true'],
    ['api', 'listProjects', '--parallelism', '4'],
    ['mcp', '--parallelism', '4'],
  ])('cplane %s … %s', async (...argv) => {
    const flag = argv.find((word) => word.startsWith('--') && word !== '--')!;
    const { code, stderr } = await cli(...argv);
    expect(code).toBe(1);
    expect(stderr).toContain(`Error: unknown flag ${flag} for \`cplane ${argv[0]}\``);
  });
});
