/**
 * Where the policy worker (sandbox.ts) imports the CEL library from: the file Node resolves for the package
 * from here. The worker's code is a string, so the bundler cannot follow its import; the GitHub Action's
 * bundle (scripts/bundle-action.mjs), which ships no node_modules, replaces this module with one that names
 * the library's file it writes beside itself.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const celModuleUrl = (): string => pathToFileURL(createRequire(import.meta.url).resolve('@marcbachmann/cel-js')).href;
