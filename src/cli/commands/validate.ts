/**
 * `cplane validate`: loads a configuration folder offline (no token, no
 * network) and reports every problem at once, for people, as JSON, or as
 * GitHub Actions annotations. The policies' rules are compiled as well.
 */
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { formatDiagnostic, formatGithub } from '../../config/index.js';
import { loadConfiguration } from '../../providers/index.js';
import { variablesLoadOptions } from '../../session/variables-flags.js';
import { githubReporter } from '../report/github-flag.js';
import { codeSpan, markdownText } from '../../text/escape-for.js';
import { jsonText } from '../../text/json-text.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const policyNote = (n: number) => (n === 0 ? '' : ` and ${n} ${n === 1 ? 'policy' : 'policies'}`);
const unsetNote = (names: string[]) =>
  names.length === 0 ? '' : ` (without a value for ${names.map((n) => `"${n}"`).join(', ')}: checked for type only)`;

export const validateCommand: CommandModule = {
  async run(ctx) {
    const format = ctx.values.format;
    if (format !== undefined && format !== 'github' && format !== 'text') {
      throw new AbortError(`Unknown --format "${String(format)}".`, 'Use --format github, or --json for machine-readable output.');
    }
    if (ctx.positionals.length > 1) throw new AbortError('validate takes at most one folder.', 'Usage: cplane validate [dir]');
    // Validation needs no variable values: a field that uses an unset variable is checked only for its type.
    const loaded = await loadConfiguration(ctx.positionals[0] ?? '.', { ...variablesLoadOptions(ctx), allowUnsetVariables: true });
    const { unsetVariables = [] } = loaded;
    // Every policy's rule is compiled too (syntax, types, a bool result), reported at the rule's line.
    // A rule that uses a variable without a value still holds `${var.NAME}`: it is compiled by plan, with the value.
    const compilable = (loaded.desired?.policies ?? []).filter((p) => !unsetVariables.some((name) => p.rule.includes(`\${var.${name}}`)));
    // Loaded only then: a configuration without policies never loads the policy layer or the CEL library.
    const policyProblems =
      compilable.length > 0 ? (await (await import('../../policy/index.js')).compilePolicies(compilable)).diagnostics : [];
    const diagnostics = [...loaded.diagnostics, ...policyProblems];
    const desired = policyProblems.length > 0 ? undefined : loaded.desired;
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const summary = desired
      ? `Configuration is valid: ${plural(desired.resources.length, 'resource')}${policyNote(desired.policies?.length ?? 0)} in ${plural(desired.files.length, 'file')}${unsetNote(unsetVariables)}.`
      : `${plural(errors, 'error')} found.`;

    const github = githubReporter(ctx);
    if (github) {
      // Annotations on stdout (GitHub reads workflow commands there), the result in the step summary.
      for (const d of diagnostics) ctx.stdout.write(`${formatGithub(d)}\n`);
      const listed = diagnostics.map(
        (d) =>
          `- ${d.severity}: ${d.range ? `${codeSpan({ name: `${d.range.file}:${d.range.line}:${d.range.col}` })} ` : ''}${markdownText(d.summary)}`,
      );
      github.summary(`#### cplane validate\n\n**${summary}**\n${listed.length ? `\n${listed.join('\n')}\n` : ''}`);
    }
    if (ctx.values.json) {
      const report = {
        valid: desired !== undefined,
        resources: desired?.resources.length ?? 0,
        files: desired?.files.length ?? 0,
        unsetVariables,
        diagnostics,
      };
      ctx.stdout.write(`${jsonText(report, 2)}\n`);
    } else if (format === 'github' || github) {
      if (!github) for (const d of diagnostics) ctx.stdout.write(`${formatGithub(d)}\n`);
      (desired ? ctx.stdout : ctx.stderr).write(`${summary}\n`);
    } else {
      const color = Boolean(ctx.stderr.isTTY) && !ctx.env.NO_COLOR;
      for (const d of diagnostics) ctx.stderr.write(`${formatDiagnostic(d, { color })}\n\n`);
      (desired ? ctx.stdout : ctx.stderr).write(`${summary}\n`);
    }
    return desired ? 0 : 1;
  },
};
