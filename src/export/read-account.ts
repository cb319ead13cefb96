/**
 * Reads everything an export needs from one account, with the planner's
 * providers, so that export and plan see a live object the same way. Lists are
 * read once for the whole account; the per-gateway reads (tokens, OTel export)
 * run in parallel, bounded by the limiter, and only for the gateways exported.
 */
import type { ApiClient } from '../api/client.js';
import { Limiter } from '../api/limiter.js';
import type { CredentialT, GatewayT, GatewayTokenT, ProjectT, ProviderT, RecordMetaT } from '../api/shapes.js';
import {
  credentialProvider,
  gatewayProvider,
  gatewayTokenProvider,
  listVendors,
  otelExportProvider,
  projectProvider,
  recordProvider,
  type LiveOtelExport,
  type ReadFailure,
  type RefreshRequest,
} from '../providers/index.js';
import { AbortError } from '../errors.js';

/** The live objects of one account (or of the selected projects), as the API returns them. */
export interface AccountObjects {
  account: string;
  /** The AI vendors (the API's "providers"). */
  vendors: ProviderT[];
  /** Every project, archived ones included (the model counts what it skips). */
  projects: ProjectT[];
  records: RecordMetaT[];
  /** Active credentials (the API hides revoked ones). */
  credentials: CredentialT[];
  gateways: GatewayT[];
  /** Tokens of the enabled gateways of the selected projects, revoked ones included. */
  tokens: GatewayTokenT[];
  otelExports: LiveOtelExport[];
}

export interface ReadAccountOptions {
  client: ApiClient;
  account: string;
  /** Project names to export; every project when empty. */
  projectNames: string[];
  /** Per-gateway reads in flight at once. */
  parallelism: number;
}

export async function readAccount(options: ReadAccountOptions): Promise<AccountObjects> {
  const { client, account } = options;
  const limiter = new Limiter(options.parallelism);
  // Nothing is known in advance about the size of a list, so each is read page after page.
  const request: RefreshRequest = { client, account, parentIds: [], limiter, expected: () => 0 };
  const [vendors, projects, records, credentials, gateways] = await Promise.all([
    listVendors(client),
    projectProvider.refresh(request),
    recordProvider.refresh(request),
    credentialProvider.refresh(request),
    gatewayProvider.refresh(request),
  ]);
  const selected = selectProjects(projects.items, options.projectNames);
  const projectIds = new Set(selected.map((p) => p.project_id));
  const gatewayIds = gateways.items
    .filter((g) => projectIds.has(g.project_id) && g.status === 'enabled')
    .map((g) => g.gateway_id)
    .sort();
  const children = { ...request, parentIds: gatewayIds };
  const [tokens, otelExports] = await Promise.all([gatewayTokenProvider.refresh(children), otelExportProvider.refresh(children)]);
  failOn([...tokens.failures, ...otelExports.failures]);
  return {
    account,
    vendors,
    projects: selected,
    records: records.items.filter((r) => projectIds.has(r.project_id)),
    credentials: credentials.items,
    gateways: gateways.items.filter((g) => projectIds.has(g.project_id)),
    tokens: tokens.items,
    otelExports: otelExports.items,
  };
}

/** The projects named by --project (all when none is), refusing a name the account does not have. */
function selectProjects(projects: ProjectT[], names: string[]): ProjectT[] {
  if (names.length === 0) return projects;
  const known = [...new Set(projects.filter((p) => !p.archived).map((p) => p.name))].sort();
  for (const name of names) {
    if (!known.includes(name)) {
      throw new AbortError(
        `No project named "${name}" in this account.`,
        known.length > 0 ? `Projects: ${known.join(', ')}. --project takes a project's name.` : 'The account has no projects.',
      );
    }
  }
  return projects.filter((p) => names.includes(p.name));
}

/** An export that silently left out a gateway's tokens or OTel export would look complete: refuse instead. */
function failOn(failures: ReadFailure[]): void {
  const first = failures[0];
  if (!first) return;
  throw new AbortError(
    `Could not read ${first.operation} of gateway ${first.parentId ?? '?'}: ${first.reason}${first.requestId ? ` (request id ${first.requestId})` : ''}` +
      (failures.length > 1 ? `, and ${failures.length - 1} more read(s) failed` : '') + '. Nothing was written.',
    'Check that the token may read gateway tokens and OTel export settings in this account.',
  );
}
