// Address locks of a PostgreSQL state, through the store: the shared conformance (../address-locks-conformance.ts)
// on a real server, each test in a schema of its own.
import { afterEach, beforeEach, describe } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { makeSandbox, newKey, type Sandbox } from '../helpers.js';
import { addressLockConformance } from '../address-locks-conformance.js';
import { schemaUrl, storeOptions } from './helpers.js';

const database = withDatabase();
let box: Sandbox;
let url: string;
let key: string;
beforeEach(() => {
  box = makeSandbox();
  url = schemaUrl(database().url).url;
  key = newKey();
});
afterEach(() => box.cleanup());

describe('address locks of a PostgreSQL state', { timeout: 60_000 }, () => {
  addressLockConformance(() => storeOptions(box, url, key));
});
