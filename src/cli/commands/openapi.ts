/**
 * `cplane openapi`: prints the OpenAPI 3.1 document generated from the
 * operation table (src/api/openapi.ts, loaded only when this command runs).
 */
import type { Command } from '../command.js';
import { AbortError } from '../errors.js';

export const openapiCommand: Command = {
  name: ['openapi'],
  summary: 'Print the OpenAPI 3.1 document of the API, generated from the operation table',
  usage: 'openapi',
  help: ['(no options) the document is JSON on stdout; the emulator serves the same one at /v1/openapi.json'],
  options: {},
  async run(ctx) {
    if (ctx.positionals.length > 0) throw new AbortError(`Unexpected arguments: ${ctx.positionals.join(' ')}.`, 'Usage: cplane openapi > openapi.json');
    const { openApiDocument } = await import('../../api/openapi.js');
    ctx.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
    return 0;
  },
};
