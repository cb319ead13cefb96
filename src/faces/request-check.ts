/**
 * Checks one call of an operation against the table before anything is sent:
 * the named parameters are split into path and query parameters, each checked
 * against its schema (query values given as text are converted to their
 * declared types, as the emulator does), and the body is checked against the
 * body schema. Problems are collected, one readable line each, and never
 * quote a value, so a secret given by mistake is not echoed.
 */
import { operations, type OperationName, type OperationSpec } from '../api/operations.js';
import { pathParamNames } from '../api/operation-docs.js';
import { bodyProblems, isPathParam, queryProblems } from '../api/request-schemas.js';
import { didYouMean } from '../text/suggest.js';
import { suggestedCommand } from '../text/escape-for.js';

export interface CheckedRequest {
  path: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: unknown;
  problems: string[];
}

/** Names of the query parameters an operation takes. */
export function queryParamNames(spec: OperationSpec): string[] {
  return Object.keys((spec.query as { properties?: object } | undefined)?.properties ?? {});
}

/**
 * `params` holds path and query parameters by name; `body` is undefined when
 * none was given. Returns the request parts ready for the client, and the
 * problems found (empty when the call may be sent).
 */
export function checkRequest(name: OperationName, params: Record<string, unknown>, body: unknown): CheckedRequest {
  const spec: OperationSpec = operations[name];
  const pathNames = pathParamNames(spec.path);
  const queryNames = queryParamNames(spec);
  const problems: string[] = [];
  const path: Record<string, string> = {};
  const query: Record<string, unknown> = {};

  for (const [param, value] of Object.entries(params)) {
    if (pathNames.includes(param)) {
      if (typeof value !== 'string' || !isPathParam(value)) problems.push(`path parameter "${param}" must be a uuid`);
      else path[param] = value;
    } else if (queryNames.includes(param)) {
      query[param] = value;
    } else {
      const known = [...pathNames, ...queryNames];
      problems.push(
        known.length === 0
          ? `${name} takes no parameters, not "${param}"`
          : `unknown parameter "${param}"${didYouMean(param, known)} (${name} takes ${known.join(', ')})`,
      );
    }
  }
  for (const param of pathNames) if (!(param in params)) problems.push(`missing path parameter "${param}" (${spec.path})`);

  if (spec.query) problems.push(...queryProblems(name, query));
  if (spec.body) {
    if (body === undefined) problems.push(`${name} needs a body (see \`${suggestedCommand(['api', name, '--help'])}\`)`);
    else problems.push(...bodyProblems(name, body));
  } else if (body !== undefined) {
    problems.push(`${name} takes no body`);
  }
  return { path, query: Object.keys(query).length > 0 ? query : undefined, body, problems };
}
