/** The version of cplane that makes a plan, recorded in it. */
import { createRequire } from 'node:module';

export const cplaneVersion = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
