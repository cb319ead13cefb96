// `cplane api` through the real CLI for operations 1 to 21 of the table (see api-cli-suite.ts).
import { operationNames } from '../../src/api/index.js';
import { cliCallSuite } from './api-cli-suite.js';

cliCallSuite(operationNames.slice(0, 21));
