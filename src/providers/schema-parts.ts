/**
 * Pieces every kind's entry schema shares (its `lifecycle` block and `dependsOn`), so that each definition
 * module writes only what is its own. The `$ref`s point at the shared definitions of
 * schema/config.schema.json, which the generator (schemas.ts) keeps.
 */
import type { JsonSchema } from '../config/blocks/kind-block.js';

/** The `lifecycle` block of an entry; `items` says which paths `ignoreChanges` may name. */
export function lifecycleSchema(noun: string, items: JsonSchema): JsonSchema {
  return {
    description: `How cplane treats changes to this ${noun}.`,
    type: 'object',
    additionalProperties: false,
    properties: {
      preventDestroy: { description: 'Refuse any plan that would delete this resource.', type: 'boolean' },
      ignoreChanges: {
        description:
          'Paths whose differences are ignored after creation, as the plan shows them: an attribute, or a path inside one (settings.requestsPerMinute, headers.Authorization); an attribute covers every path inside it.',
        type: 'array',
        uniqueItems: true,
        items,
      },
    },
  };
}

/** `dependsOn`: explicit dependencies, in addition to the implied ones. */
export const dependsOnSchema: JsonSchema = { $ref: '#/$defs/dependsOn' };
