// What the token delivery stories share: a token delivered to a record granted to ci-deployer, and how that
// Service Account reads it (the real `cplane read` with its token and private key).
import { fixtures } from '../../src/emulator/fixtures.js';
import { privateKeyOf } from '../helpers/readers.js';
import type { World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;

export const deliveredConfig = (label: string) => `version: 1
projects:
  core:
    description: Core
    records:
      ci-token:
        grants:
          serviceAccounts: [ci-deployer]
credentials:
  openai: { provider: openai, label: ${label}, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: core
    name: Delivery gateway
    slug: ${label}-main
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci:
        scopes: [run]
        expiresInDays: 30
        renewBeforeDays: 7
        deliverTo: { record: core/ci-token }
`;

/** `cplane read` as ci-deployer (its token and private key): what the application reads. */
export const readAs = (world: World, id: string) =>
  world.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', id], { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) });
