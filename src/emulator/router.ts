/**
 * Matches `METHOD /v1/...` to an operation of the table in src/api/operations.ts.
 * Path parameters are captured raw (decoded); their format is checked later.
 */
import { operationNames, operations, type OperationName } from '../api/operations.js';

interface Route {
  name: OperationName;
  method: string;
  pattern: RegExp;
  params: string[];
}

const routes: Route[] = operationNames.map((name) => {
  const spec = operations[name];
  const params: string[] = [];
  const source = spec.path.replace(/\{(\w+)\}/g, (_, param: string) => {
    params.push(param);
    return '([^/]+)';
  });
  return { name, method: spec.method, pattern: new RegExp(`^${source}$`), params };
});

export type RouteMatch =
  { kind: 'operation'; name: OperationName; params: Record<string, string> } | { kind: 'method_not_allowed' } | { kind: 'not_found' };

export function matchRoute(method: string, pathname: string): RouteMatch {
  if (!pathname.startsWith('/v1/')) return { kind: 'not_found' };
  const path = pathname.slice(3).replace(/\/+$/, '') || '/';
  let pathMatched = false;
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    pathMatched = true;
    if (route.method !== method) continue;
    const params: Record<string, string> = {};
    let decodable = true;
    route.params.forEach((param, i) => {
      try {
        params[param] = decodeURIComponent(match[i + 1]!);
      } catch {
        decodable = false;
      }
    });
    if (!decodable) return { kind: 'not_found' };
    return { kind: 'operation', name: route.name, params };
  }
  return pathMatched ? { kind: 'method_not_allowed' } : { kind: 'not_found' };
}
