/**
 * What several loads of one configuration folder share: `cplane test` loads it once per run, each run with its own
 * variable values, and only what follows the values (interpolation, expansion, the checks, the desired state)
 * differs from run to run. Each file is parsed once (a load gets a copy of its value, since expansion rewrites the
 * value in place); the folder's listing and its bounds are found once. A file is still read by every load, and
 * parsed again when its bytes changed.
 */
import { pathBounds, type PathBounds } from './path-bounds.js';
import { copyWithPositions, parseSourceFile, type ParsedFiles, type SourceFile } from './source-file.js';
import type { DiagnosticSink } from '../diagnostics.js';

export class SharedLoads implements ParsedFiles {
  private readonly parsed = new Map<string, { bytes: Buffer; file: SourceFile }>();
  private readonly bounds = new Map<string, Promise<PathBounds>>();
  private readonly listings = new Map<string, string[]>();

  /** The file of `bytes`, parsed once: a copy whose value the load may rewrite. Only a file that parsed is kept. */
  parse(bytes: Buffer, path: string, display: string, sink: DiagnosticSink, unquoted: boolean): SourceFile | undefined {
    const key = JSON.stringify([path, display, unquoted]);
    const kept = this.parsed.get(key);
    let file = kept?.bytes.equals(bytes) ? kept.file : undefined;
    if (!file) {
      file = parseSourceFile(bytes, path, display, sink, { unquoted });
      if (!file) return undefined;
      this.parsed.set(key, { bytes, file });
    }
    return { ...file, value: copyWithPositions(file, file.value) };
  }

  pathBounds(root: string): Promise<PathBounds> {
    let found = this.bounds.get(root);
    if (!found) this.bounds.set(root, (found = pathBounds(root)));
    return found;
  }

  /** The configuration files `list` found in `dir` (the first time; undefined, and not kept, when there were none). */
  async listing(dir: string, list: () => Promise<string[] | undefined>): Promise<string[] | undefined> {
    const kept = this.listings.get(dir);
    if (kept) return kept;
    const names = await list();
    if (names) this.listings.set(dir, names);
    return names;
  }
}
