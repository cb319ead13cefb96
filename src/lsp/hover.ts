/**
 * Hover: for a name, what it names and where it is declared; for a resource with `forEach`, how many instances
 * it makes (when its keys are written in the file); for a gateway's spend limit, its amount over 30 days (as
 * plan normalises it); for a key, the schema's description.
 */
import { relative } from 'node:path';
import type { JsonSchema } from '../config/index.js';
import { per30Days, shown } from '../spend/money.js';
import { cursorAt } from './cursor.js';
import type { NamesIndex } from './names-index.js';
import { schemaAt } from './schema-at.js';

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function instances(forEach: unknown): string {
  if (Array.isArray(forEach)) return `forEach makes ${forEach.length} instance${forEach.length === 1 ? '' : 's'}`;
  if (isMapping(forEach)) return `forEach makes ${Object.keys(forEach).length} instance${Object.keys(forEach).length === 1 ? '' : 's'}`;
  return 'forEach: its instances are known when the configuration loads (the keys come from a variable)';
}

export function hoverAt(index: NamesIndex, schema: JsonSchema, path: string, text: string, offset: number): string | undefined {
  const at = index.occurrenceAt(path, offset);
  if (at) {
    const what = at.space.replace(/^resource:/, '').replace(/^directory:/, 'directory.');
    const lines = [`**${what}** \`${at.name}\``];
    for (const d of index.declarationsOf(at.symbol)) {
      const file = index.fileNamesOf(d.path)?.file;
      const { line, col } = file ? file.lines.linePos(d.start) : { line: 1, col: 1 };
      lines.push(`declared in ${relative(index.root, d.path)}:${line}:${col}`);
      if (d.forEach !== undefined) lines.push(instances(d.forEach));
    }
    if (index.declarationsOf(at.symbol).length === 0) lines.push('not declared in this configuration');
    return lines.join('\n\n');
  }
  const lineEnd = text.indexOf('\n', offset);
  const word = /^[A-Za-z0-9_]*/.exec(text.slice(offset, lineEnd === -1 ? undefined : lineEnd))![0];
  const cursor = cursorAt(text, offset);
  const key = `${cursor.prefix}${word}`;
  if (cursor.part !== 'key' && !(cursor.part === 'value' && cursor.prefixStart > 0)) return undefined;
  const keyPath = cursor.part === 'key' ? [...cursor.path, key] : cursor.path;
  const lines: string[] = [];
  const description = schemaAt(schema, keyPath)?.description;
  if (typeof description === 'string') lines.push(description);
  if (keyPath.at(-1) === 'spendLimitUsd') {
    let settings: unknown = index.fileNamesOf(path)?.file?.value;
    for (const key of keyPath.slice(0, -1)) settings = isMapping(settings) ? settings[key] : undefined;
    const limit = isMapping(settings) ? settings.spendLimitUsd : undefined;
    const window = isMapping(settings) && typeof settings.window === 'string' ? settings.window : 'day';
    if (typeof limit === 'string' && /^[0-9]+(\.[0-9]+)?$/.test(limit) && ['day', 'week', 'month'].includes(window)) {
      lines.push(`${limit} USD a ${window}: ${shown(per30Days(limit, window as 'day'))} USD over 30 days`);
    }
  }
  return lines.length > 0 ? lines.join('\n\n') : undefined;
}
