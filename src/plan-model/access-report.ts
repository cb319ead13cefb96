/**
 * The access report (`cplane access report`): per record, who can read it and through which grant, with what a
 * reviewer should look at flagged. Plain data: access/access-report.ts computes it from the configuration, the
 * state, the live grants and the record-access audit feed; render/access-report.ts only shows it (text, JSON,
 * CSV, Markdown). Its JSON form is schema/access-report.schema.json.
 */

/** Who a reader is. */
export type AccessReaderType = 'service_account' | 'user' | 'group';

/**
 * How the reader reads the record: a Service Account's grant, a user's or a group's share of the record, a
 * group's role on the record's project, or none any more (`former`: it read the current value version and has
 * no grant now).
 */
export type AccessPath = 'service-account-grant' | 'user-share' | 'group-share' | 'project-group-role' | 'former';

/** What the report asks a reviewer to look at, per reader. */
export type AccessFlag =
  /** The account has the grant; the configuration does not list it. */
  | { code: 'unmanaged' }
  /** The configuration lists the grant; the account does not have it (the next apply grants it). */
  | { code: 'not-granted' }
  /** No grant now, but it read the current value version (`readAt`, the last such read): rotate to take it back. */
  | { code: 'may-hold-version'; version: number; readAt: string }
  /** A Service Account that is not active holds the grant. */
  | { code: 'inactive'; status: string }
  /** Not read through this grant for `days` days (`lastRead` null: never, as far as the audit feed goes back). */
  | { code: 'unused'; days: number; lastRead: string | null }
  /** The configured `until` is within 7 days of the API's clock (`left`: `in 3 days`). */
  | { code: 'ends-soon'; until: string; left: string }
  /** The configured `until` has passed: the next plan revokes the grant. */
  | { code: 'ended'; until: string };

export type AccessFlagCode = AccessFlag['code'];

export interface AccessReader {
  type: AccessReaderType;
  /** The reader's id (a uuid). */
  id: string;
  /** Its name in the configuration (`directory:`, a Service Account's name), else as the API lists it, else the id. Untrusted. */
  name: string;
  via: AccessPath;
  /** The configuration's address of the grant, when the configuration lists it. */
  address?: string;
  /** For `project-group-role`: the role's name. */
  role?: string;
  /** Whether the account has the grant: null when no operation reads it back (a project's group role). */
  live: boolean | null;
  /** A Service Account's status, as `GET /service-accounts` lists it. */
  status?: string;
  /** The last read of the record by this reader in the audit feed (Service Accounts and users), null when none. */
  lastRead?: string | null;
  until?: string;
  reason?: string;
  flags: AccessFlag[];
}

export interface AccessRecord {
  recordId: string;
  projectId: string;
  /** The project's name as the API lists it (else its id). Untrusted. */
  project: string;
  /** The record's name as the API lists it. Untrusted. */
  name: string;
  /** The configuration's address, when the configuration declares the record. */
  address?: string;
  currentVersion: number | null;
  readers: AccessReader[];
}

export interface AccessReport {
  account: string;
  /** The API's clock when the report was made (every time in it is measured against it). */
  now: string;
  /** `--unused-days`: a grant not read for this many days is flagged `unused`. */
  unusedDays: number;
  /** Whether `GET /audit/record-access` could be read: without it no reader is flagged `unused` or `may-hold-version`. */
  auditRead: boolean;
  records: AccessRecord[];
  /** How many reader rows the records have in all. */
  readerCount: number;
  /** How many readers carry each flag. */
  flagged: Record<AccessFlagCode, number>;
}
