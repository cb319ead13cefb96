/** The PostgreSQL backend (rows per entry, an advisory lock) passes the state backend conformance suite on a real server. */
import { hostname } from 'node:os';
import { PostgresBackend } from '../../../src/state/postgres/index.js';
import { withDatabase } from '../../helpers/postgres.js';
import { describeStateBackend } from '../backend-conformance.js';
import { schemaUrl } from './helpers.js';

const database = withDatabase();

describeStateBackend('PostgreSQL', () => ({
  locate() {
    // A schema of its own per test.
    const { url } = schemaUrl(database().url);
    return { statePath: url, backend: () => new PostgresBackend({ url, account: 'acc_1' }) };
  },
  // The holder is named user@host.
  holderHost: new RegExp(`@${hostname()}$`),
  // A live holder's session is ended only with --force.
  forceUnlockCommand: (lockId) => `cplane force-unlock ${lockId} --force`,
}));
