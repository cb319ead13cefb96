// `cplane api` through the real CLI for share 1 of the three shares of the operation table (see api-cli-suite.ts).
import { callShare, cliCallSuite } from './api-cli-suite.js';

cliCallSuite(callShare(1));
