/**
 * What a route is: how one API operation travels. The operations' table (operations.ts) holds each operation's
 * route beside its schemas; routes.ts is its light copy, generated, for what must load without a schema library.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** A 404 reason that says the object a request names is not there (the spec's "Not found" row has the first ones). */
export type NotFoundReason = `${string}_not_found`;
/** H: human PAT only. SA: a Service Account token is accepted too. */
export type Identity = 'H' | 'SA';

export interface Route {
  method: HttpMethod;
  /** Path without the /v1 prefix; `{name}` marks a path parameter. */
  path: string;
  identity: Identity;
  /** Whether the operation works inside one account and so needs `x-account-id`. */
  accountScoped: boolean;
  /** Role permission the emulator checks. */
  permission: string;
  /** Record ownership substitutes for the permission (spec: "or record ownership"). */
  ownerMay?: boolean;
  /** How a paginated list pages: `array` (data is the page) or `rows` (data.rows, data.total). */
  pages?: 'array' | 'rows';
  /** Plan-limited creation (spec Limits 5): may fail with `plan_limit_reached`. */
  planLimited?: 'projects' | 'credentials' | 'gateways';
  /**
   * The not-found reasons it answers for the objects its path or body names: the one list of them. A 404 with one
   * of these is a refusal (the object is gone); any other 404, such as `route_not_found`, is a failure.
   */
  notFound?: readonly NotFoundReason[];
}

/** The fields of a Route, in the order the generated routes.ts writes them. */
export const routeFields = [
  'method',
  'path',
  'identity',
  'accountScoped',
  'permission',
  'ownerMay',
  'pages',
  'planLimited',
  'notFound',
] as const satisfies readonly (keyof Route)[];

/** Fills a path template: `/gateways/{id}` + {id: 'x'} -> `/gateways/x` (each value URL-encoded). */
export function fillPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter "${name}" for ${template}`);
    return encodeURIComponent(value);
  });
}

/** `/gateways/{id}/tokens/{tokenId}` -> ['id', 'tokenId']. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}
