/**
 * The one reader of the live account (read-account.ts) and what each of its readers reads (profiles.ts): a plan,
 * an export and the access report.
 */
export {
  readAccount,
  startReadingAccount,
  type AccountRead,
  type AccountReading,
  type ReadAccountOptions,
  type ReadProfile,
} from './read-account.js';
export { accessProfile, exportProfile, planProfile, type PlanReading } from './profiles.js';
