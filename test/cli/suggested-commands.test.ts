// Every command a hint suggests parses (issue 41: a hint said `--all` to commands that had no such flag). Two walks:
// the sources' suggestions (`cplane ...` quoted in a message: in a string, or escaped in a template literal), each
// parsed by the CLI's own parser with `${...}` filled in; and every command that reads a configuration, run against a
// configuration with deployments as a new user runs it (no flag, then a flag it does not take with deployments), whose
// printed hints are parsed the same way.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { parseCommandLine } from '../../src/cli/main.js';
import { extraAccount } from '../../src/emulator/index.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const root = join(import.meta.dirname, '..', '..', 'src');

/** The words of a suggested command line as a shell splits them (single quotes as suggestedCommand writes them). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g))
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!);
  return words;
}

/** Why `line` (after `cplane `) does not parse, or undefined when it does. A flag named without its value (`--out`) is a mention of that flag: it parses. */
function whyNotParsing(line: string): string | undefined {
  const words = shellWords(line);
  if (words[0] === '--help' || words[0] === '--version' || words[0] === 'help' || words.length === 0) return undefined;
  // A group alone (`cplane state`) lists its commands.
  if (words.length === 1 && commands.some((c) => c.name.length > 1 && c.name[0] === words[0])) return undefined;
  try {
    if (!parseCommandLine(words)) return `no command "${words.slice(0, 2).join(' ')}"`;
  } catch (error) {
    const last = words.at(-1)!;
    if ((error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && last.startsWith('--')) return undefined;
    return (error as Error).message;
  }
  return undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** `${expression}` as a word a person would type there. */
const filled = (text: string) => text.replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, 'X');

/** The commands quoted in the sources' messages: `\`cplane ...\`` in template literals, '`cplane ...`' in strings. */
function suggestionsInSources(): { where: string; line: string }[] {
  const found: { where: string; line: string }[] = [];
  for (const file of sourceFiles(root)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        if (/^\s*(\/\/|\*|\/\*)/.test(text)) return;
        const where = `${file.slice(root.length + 1)}:${i + 1}`;
        for (const m of text.matchAll(/\\`cplane ((?:[^`\\]|\\[^`])*)\\`/g)) found.push({ where, line: filled(m[1]!) });
        for (const literal of text.matchAll(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g)) {
          for (const m of literal[0].matchAll(/`cplane ([^`]*)`/g)) found.push({ where, line: filled(m[1]!) });
        }
      });
  }
  // A command chosen at run time (`cplane ${verb}`) or a placeholder for one (`cplane <command> --help`) is walked below, run.
  return found.filter((s) => !/^(X|<)/.test(s.line));
}

it('every command the sources suggest in a message parses', () => {
  const suggestions = suggestionsInSources();
  expect(suggestions.length).toBeGreaterThan(40);
  const broken = suggestions.flatMap(({ where, line }) => {
    const why = whyNotParsing(line);
    return why ? [`${where}: cplane ${line}: ${why}`] : [];
  });
  expect(broken).toEqual([]);
});

let temp: string;
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-hints-'));
  mkdirSync(join(temp, 'infra'));
  writeFileSync(join(temp, 'state.json'), '{}');
  writeFileSync(
    join(temp, 'infra', 'main.yaml'),
    `version: 1
variables:
  env: { type: string }
deployments:
  dev: { account: ${extraAccount(1).id}, variables: { env: dev } }
  prod: { account: ${extraAccount(2).id}, variables: { env: prod } }
projects:
  shop: { description: "shop \${var.env}" }
`,
  );
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Each command's arguments before its [dir], as a person gives them. */
const argumentsOf: Record<string, string[]> = {
  'state show': ['project.shop'],
  'state rm': ['project.shop'],
  'state mv': ['project.shop', 'project.store'],
  'state push': ['state.json'],
  'state migrate': ['--to', 'other.json'],
  'access offboard': ['dana'],
  read: ['record.shop/key'],
  'force-unlock': ['lock-id'],
  run: ['--env', 'A=record.shop/key'],
  apply: ['--auto-approve'],
  destroy: ['--auto-approve'],
};

it('every command that reads a configuration, given one with deployments, suggests only commands that parse', async () => {
  const env = {
    PATH: process.env.PATH,
    HOME: temp,
    NO_COLOR: '1',
    CPLANE_BASE_URL: 'http://127.0.0.1:9',
    CPLANE_TOKEN: 'sk-svc-pat-hints',
    CPLANE_STATE_KEY: Buffer.alloc(32, 3).toString('base64'),
  };
  const walked: string[] = [];
  const refused: string[] = [];
  for (const command of commands.filter((c) => c.deployments || ['plan', 'apply'].includes(c.name[0]!))) {
    const name = command.name.join(' ');
    const args = [...command.name, ...(argumentsOf[name] ?? []), 'infra', ...(name === 'run' ? ['--', 'true'] : [])];
    // As a new user runs it first; then, for a command that needs one deployment, with --all (it says what to give instead).
    const runs = [
      args,
      ...(command.deployments?.runs === 'one'
        ? [
            [
              ...args.slice(0, -(name === 'run' ? 3 : 1)),
              '--deployment',
              'dev',
              '--deployment',
              'prod',
              ...args.slice(-(name === 'run' ? 3 : 1)),
            ],
          ]
        : []),
    ];
    for (const argv of runs) {
      const { stderr } = await runInProcess(argv, env, temp);
      const hints = [...stderr.matchAll(/`cplane ([^`]*)`/g)].map((m) => m[1]!);
      if (argv === args && stderr.includes('has deployments (dev, prod)')) refused.push(name);
      for (const hint of hints) {
        walked.push(hint);
        expect(whyNotParsing(hint), `${name}: cplane ${hint}`).toBeUndefined();
      }
    }
  }
  // Without a flag, each command that needs an account says so (validate and graph check the configuration offline,
  // without any deployment's values; state push reads its file first).
  expect(refused.sort()).toEqual([
    'access offboard',
    'access report',
    'apply',
    'destroy',
    'drift',
    'force-unlock',
    'init',
    'output',
    'plan',
    'read',
    'reconcile',
    'run',
    'state history',
    'state list',
    'state migrate',
    'state mv',
    'state plans',
    'state pull',
    'state rm',
    'state show',
    'writer-key',
  ]);
  // The has-deployments hint names the command as it was run, with the flag to add.
  expect(walked).toContain('state show project.shop infra --all');
  expect(walked).toContain('read record.shop/key infra --deployment dev');
  expect(walked).not.toContain('read record.shop/key infra --all');
});
