/**
 * The version of cplane, read once from package.json, so `cplane --version`,
 * the API client's user agent and the package always agree.
 */
import { readFileSync } from 'node:fs';

// package.json sits one folder above this file, both as src/version.ts and as dist/version.js.
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const version: string = packageJson.version;
