// A plan that cannot be made reports its problems as diagnostics with a code and the resource's position:
// in JSON with their ranges, as GitHub annotations on the line, and as `file:line:col: error:` for people.
// Diagnostics are the subject, not the process: the CLI runs in-process (Harness.run).
import { describe, expect, it } from 'vitest';
import { eachTestHarness, fullConfig } from './harness.js';

describe('plan problems as diagnostics', () => {
  const h = eachTestHarness({ config: fullConfig });

  it('--json carries the code and the range of the resource', async () => {
    const result = await h().run(['plan', '--json'], { OTEL_AUTH: '' });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      planned: boolean;
      diagnostics: { code: string; address?: string; range?: { file: string; line: number } }[];
    };
    expect(report.planned).toBe(false);
    expect(report.diagnostics.map((d) => [d.code, d.address, d.range?.file, d.range?.line])).toEqual([
      ['secret_unavailable', 'otel_export.prod', 'main.yaml', 26],
    ]);
  });

  it('--format github annotates the line, and the text form reads like a configuration error', async () => {
    const github = await h().run(['plan', '--format', 'github'], { OTEL_AUTH: '' });
    expect(github.code).toBe(1);
    expect(github.stdout).toMatch(/^::error file=main\.yaml,line=26,col=\d+,title=secret_unavailable::otel_export\.prod: /);
    const text = await h().run(['plan'], { OTEL_AUTH: '' });
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^Error: the plan cannot be made:\n\nmain\.yaml:26:\d+: error: otel_export\.prod: /);
  });
});
