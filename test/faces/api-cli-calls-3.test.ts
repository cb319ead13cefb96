// `cplane api` through the real CLI for operations 42 to 61 of the table (see api-cli-suite.ts).
import { operationNames } from '../../src/api/index.js';
import { cliCallSuite } from './api-cli-suite.js';

cliCallSuite(operationNames.slice(41, 61));
