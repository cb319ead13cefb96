/**
 * Ink, loaded with import() when a terminal view starts, never with a static import. The CLI's
 * bundle is CommonJS (docs/performance.md), and Ink is an ES module with a top-level await (yoga's
 * WebAssembly), which require() cannot load. The components take Ink from here when they render.
 */
import type * as InkModule from 'ink';
import { BugError } from '../errors.js';

let loaded: typeof InkModule | undefined;

/** Loads Ink; the render functions await it before the first render. */
export async function loadInk(): Promise<typeof InkModule> {
  return (loaded ??= await import('ink'));
}

/** Ink, once loadInk() has resolved. */
export function ink(): typeof InkModule {
  if (!loaded) throw new BugError('an Ink view was rendered before loadInk()');
  return loaded;
}
