/**
 * The `defaults:` block: configuration-wide values of entry fields, by the key the entries sit under
 * (`defaults: { tokens: { renewBeforeDays: 7, overlapHours: 24 } }`). An entry's own value wins over the
 * default. The schema says which keys and fields may have one; here the files' blocks are merged, and a
 * field given a default in two files is an error (which one wins would depend on file names).
 */
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { offsetIn, type SourceFile } from '../files/source-file.js';
import type { ConfigFile } from '../files/config-file.js';
import type { Entry } from './kind-block.js';

/** Defaults by entry key (`tokens`), each a map of field -> value. */
export type Defaults = Record<string, Entry>;

export function collectDefaults(files: readonly { file: SourceFile; config: ConfigFile }[], sink: DiagnosticSink): Defaults {
  const merged: Defaults = {};
  const givenIn = new Map<string, string>();
  for (const { file, config } of files) {
    for (const [key, fields] of Object.entries(config.defaults ?? {})) {
      for (const [field, value] of Object.entries(fields)) {
        const earlier = givenIn.get(`${key}.${field}`);
        if (earlier !== undefined) {
          sink.push(
            diagnosticAt(file, offsetIn(file, fields, field), {
              code: 'duplicate_default',
              summary: `defaults.${key}.${field} is given twice: in ${earlier} and again here`,
              detail: 'Give each default in one file of the configuration.',
            }),
          );
          continue;
        }
        givenIn.set(`${key}.${field}`, file.display);
        merged[key] = { ...merged[key], [field]: value };
      }
    }
  }
  return merged;
}

/** The entry with the defaults of its key filled in where it gives no value of its own. */
export function withDefaults(defaults: Defaults, key: string, entry: Entry): Entry {
  const given = defaults[key];
  if (!given) return entry;
  return { ...Object.fromEntries(Object.entries(given).filter(([field]) => entry[field] === undefined)), ...entry };
}
