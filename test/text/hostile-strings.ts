// The hostile strings every output place is tested with (test/text/escape-for.test.ts, test/render/markdown-escaping.test.ts):
// what the API, the state or a configuration could carry in a drift reason, a step note, an unreadable reason, a
// request id or an error message. SECRET is registered as a secret by the tests that check redaction.
export const SECRET = 'sk-live-0123456789abcdef';

export const HOSTILE = [
  'forbidden</details>\n\n<img src="https://evil.example/beacon.png"> @octocat <!--',
  'req-`id`-``x',
  '`',
  ' `lead and trail` ',
  '| cell | split |',
  '**bold** _em_ [link](https://evil.example) ![img](https://evil.example/x.png)',
  '# heading',
  '- item',
  '  + spaced item',
  '12. item',
  '> quote',
  '===',
  '-->',
  '--!> after',
  '<!-- open',
  '<script>alert(1)</script>',
  '&lt;b&gt; &amp; &#64;',
  '\u001b[31mred\u0007 \u202eevil\u202c',
  'line1\r\nline2\n',
  '::error::injected',
  '%0A::warning file=x::y',
  'a,b:c',
  'fixes #123 and @acme/team and @octocat',
  '\\',
  '\\`x\\`',
  '~~strike~~',
  `the key ${SECRET} leaked`,
  '"quoted" \'single\'',
  '',
];
