// Suggested commands are shell-quoted: one function (POSIX single quotes, only when needed). Every quoted word,
// hostile ones included, reaches a real shell (sh, bash with failglob) as exactly the word it was.
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { shellArgument, suggestedCommand } from '../../src/text/escape-for.js';

test.each([
  ['gateway_token.prod/ci', 'gateway_token.prod/ci'],
  ['record.payments/stripe-key', 'record.payments/stripe-key'],
  ['--reveal', '--reveal'],
  ['./plans/prod.plan', './plans/prod.plan'],
  ['gateway_token.team[payments]/ci', "'gateway_token.team[payments]/ci'"],
  ["gateway_token.team[o'neil]/ci", "'gateway_token.team[o'\\''neil]/ci'"],
  ['gateway.team[$HOME]', "'gateway.team[$HOME]'"],
  ['my plans/prod.plan', "'my plans/prod.plan'"],
  ['a`id`b', "'a`id`b'"],
  ['x;rm -rf ~', "'x;rm -rf ~'"],
  ['*', "'*'"],
  ['=ls', "'=ls'"],
  ['~root', "'~root'"],
  ['', "''"],
])('%j is written %s', (word, quoted) => {
  expect(shellArgument(word)).toBe(quoted);
});

test('a suggested command quotes each of its words, and only those that need it', () => {
  expect(suggestedCommand(['output', 'gateway_token.team[payments]/ci', '--reveal'])).toBe(
    "cplane output 'gateway_token.team[payments]/ci' --reveal",
  );
  expect(suggestedCommand(['force-unlock', '7c1e2f00-0000-4000-8000-000000000000'])).toBe(
    'cplane force-unlock 7c1e2f00-0000-4000-8000-000000000000',
  );
});

/** What `shell` passes to a command for the quoted words: one line each (printf '%s\n'). */
function throughShell(shell: string[], words: string[]): string[] {
  const script = `printf '%s\\n' ${words.map(shellArgument).join(' ')}`;
  return execFileSync(shell[0]!, [...shell.slice(1), '-c', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home' },
  })
    .split('\n')
    .slice(0, -1);
}

const shells = [['sh'], ['bash', '-O', 'failglob']];
const hostile = [
  'team[payments]',
  "o'neil",
  "it's $HOME and ${PATH}",
  'a b  c',
  '`id`',
  '$(id)',
  '*?[x]',
  '!x',
  '#not a comment',
  '~',
  '=cmd',
  'x\\y',
  '"quoted"',
  'semi;colon&amp|pipe',
  '{a,b}',
];

test.each(shells)('%s receives every hostile word exactly as it was', (...shell) => {
  expect(throughShell(shell, hostile)).toEqual(hostile);
});

test('property: any printable word reaches sh unchanged', () => {
  const word = fc.string({ unit: fc.constantFrom(...'ab/[]{}*?$`\'" \\~=!#;&|<>()%@+,.:-_'.split('')), minLength: 0, maxLength: 12 });
  fc.assert(
    fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
      expect(throughShell(['sh'], words)).toEqual(words);
    }),
    { numRuns: 60 },
  );
});
