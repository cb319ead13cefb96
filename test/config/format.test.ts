/** How diagnostics are printed: for people, with colour or not, and for GitHub Actions. */
import { expect, test } from 'vitest';
import { formatDiagnostic, formatGithub, type Diagnostic } from '../../src/config/index.js';

const diagnostic: Diagnostic = {
  severity: 'error',
  code: 'unknown_key',
  summary: 'Unknown key "descripton" in project "payments"; did you mean "description"?',
  detail: 'Valid keys: name, description.',
  range: { file: 'config/main.yaml', line: 4, col: 5 },
  snippet: '   4 |     descripton: x\n     |     ^^^^^^^^^^',
};

test('plain text: position, summary, snippet with caret, detail', () => {
  expect(formatDiagnostic(diagnostic, { color: false })).toBe([
    'config/main.yaml:4:5: error: Unknown key "descripton" in project "payments"; did you mean "description"?',
    '   4 |     descripton: x',
    '     |     ^^^^^^^^^^',
    '  Valid keys: name, description.',
  ].join('\n'));
});

test('colour only adds escape codes', () => {
  const coloured = formatDiagnostic(diagnostic, { color: true });
  expect(coloured).toContain('\u001b[1;31merror\u001b[0m');
  expect(coloured.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')).toBe(formatDiagnostic(diagnostic, { color: false }));
});

test('a diagnostic without position', () => {
  expect(formatDiagnostic({ severity: 'warning', code: 'x', summary: 'Something' }, { color: false })).toBe('warning: Something');
});

test('GitHub annotation with escaped properties and message', () => {
  expect(formatGithub(diagnostic)).toBe(
    '::error file=config/main.yaml,line=4,col=5,title=unknown_key::Unknown key "descripton" in project "payments"; did you mean "description"?%0AValid keys: name, description.',
  );
  expect(formatGithub({ severity: 'error', code: 'c', summary: '100% done', range: { file: 'a,b:c.yaml', line: 1, col: 1 } }))
    .toBe('::error file=a%2Cb%3Ac.yaml,line=1,col=1,title=c::100%25 done');
});
