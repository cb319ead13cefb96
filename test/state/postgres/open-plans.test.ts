// The open-plan registry of a PostgreSQL state: one row of `open_plans` per account, workspace and pull request.
import { PostgresBackend } from '../../../src/state/postgres/index.js';
import { withDatabase } from '../../helpers/postgres.js';
import { openPlansConformance } from '../open-plans-conformance.js';
import { schemaUrl, withClient } from './helpers.js';

const database = withDatabase();

openPlansConformance('PostgreSQL', async () => {
  const { url, schema } = schemaUrl(database().url);
  const backend = new PostgresBackend({ url, account: 'acc_1' });
  // Another workspace's plans are its own.
  const other = new PostgresBackend({ url, account: 'acc_1', workspace: 'staging' });
  const registry = backend.openPlans();
  return {
    registry: {
      list: registry.list,
      async register(plan) {
        await registry.register(plan);
        await other.openPlans().register({ ...plan, addresses: ['project.elsewhere'] });
      },
      forget: registry.forget,
    },
    plant: (pr, data) =>
      withClient(url, (client) =>
        client.query(`INSERT INTO ${schema}.open_plans (account, workspace, pr, data) VALUES ('acc_1', 'default', $1, $2::jsonb)`, [
          pr,
          JSON.stringify(data),
        ]),
      ).then(() => undefined),
    async close() {
      await backend.close();
      await other.close();
    },
  };
});
