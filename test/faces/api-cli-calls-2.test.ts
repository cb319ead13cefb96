// `cplane api` through the real CLI for operations 22 to 41 of the table (see api-cli-suite.ts).
import { operationNames } from '../../src/api/index.js';
import { cliCallSuite } from './api-cli-suite.js';

cliCallSuite(operationNames.slice(21, 41));
