/**
 * `cplane openapi`: prints the OpenAPI 3.1 document generated from the
 * operation table (src/api/openapi.ts).
 */
import type { CommandModule } from '../../session/command-context.js';
import { openApiDocument } from '../../api/openapi.js';
import { AbortError } from '../../errors.js';
import { jsonText } from '../../text/json-text.js';

export const openapiCommand: CommandModule = {
  async run(ctx) {
    if (ctx.positionals.length > 0)
      throw new AbortError(`Unexpected arguments: ${ctx.positionals.join(' ')}.`, 'Usage: cplane openapi > openapi.json');
    ctx.stdout.write(`${jsonText(openApiDocument(), 2)}\n`);
    return 0;
  },
};
