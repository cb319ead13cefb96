/**
 * The version of cplane, read once from package.json, so `cplane --version`,
 * the API client's user agent and the package always agree.
 */
import { readFileSync } from 'node:fs';
import { packageFile } from './package-files.js';

const packageJson = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string };

export const version: string = packageJson.version;
