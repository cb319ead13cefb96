/**
 * `cplane fmt [dir] [--check] [--diff]`: rewrites the configuration's files in canonical form
 * (src/config/files/format.ts), as `terraform fmt` does: the files it changed are listed; with --check nothing
 * is written and the files that differ are listed with exit code 3; --diff prints a unified diff. When any
 * file cannot be read or parsed, nothing is written.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { formatConfigFolder, formatDiagnostic } from '../../config/index.js';
import { packageFile } from '../../package-files.js';
import { safeLines, safeName } from '../../text/safe-text.js';
import { exitCodes } from '../exit-codes.js';

export const fmtCommand: CommandModule = {
  async run(ctx) {
    if (ctx.positionals.length > 1) throw new AbortError('fmt takes at most one folder.', 'Usage: cplane fmt [dir] [--check] [--diff]');
    const root = resolve(ctx.cwd, ctx.positionals[0] ?? '.');
    const display = (path: string) => {
      const shown = relative(ctx.cwd, path);
      return shown.startsWith('..') || isAbsolute(shown) ? path : shown;
    };
    // The published schema is the one a file is checked against; its declared order is the key order.
    const schema = JSON.parse(await readFile(packageFile('schema', 'config.schema.json'), 'utf8')) as Record<string, unknown>;
    const { files, diagnostics } = await formatConfigFolder(root, display, schema);
    if (diagnostics.length > 0) {
      const color = Boolean(ctx.stderr.isTTY) && !ctx.env.NO_COLOR;
      for (const d of diagnostics) ctx.stderr.write(`${formatDiagnostic(d, { color })}\n\n`);
      ctx.stderr.write('Nothing was formatted: fix the files above first.\n');
      return exitCodes.error;
    }
    const changed = files.filter((f) => f.formatted !== f.text);
    const check = ctx.values.check === true;
    for (const file of changed) {
      if (ctx.values.diff === true) {
        ctx.stdout.write(safeLines(createTwoFilesPatch(file.display, file.display, file.text, file.formatted, 'current', 'formatted')));
      } else {
        ctx.stdout.write(`${safeName(file.display)}\n`);
      }
      if (!check) await writeFile(file.path, file.formatted);
    }
    return check && changed.length > 0 ? exitCodes.unformatted : exitCodes.ok;
  },
};
