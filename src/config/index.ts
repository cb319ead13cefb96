/**
 * The configuration language: a folder of YAML files in, a typed desired
 * state with dependency edges out, and diagnostics that point at the line.
 * Other folders use only what is exported here.
 */
export { loadConfig, type LoadOptions, type LoadResult } from './load.js';
export { SharedLoads } from './files/shared-loads.js';
export type { VariableArgument } from './values/variables.js';
export { formatDiagnostic, formatGithub } from './diagnostics.js';
export { resolveSecret, describeSecretSource, generateSecret } from './values/secrets.js';
export { canonicalJson } from './canonical-json.js';
export { didYouMean } from '../text/suggest.js';
export type * from './blocks/kind-block.js';
export { VALUE } from './blocks/kind-block.js';
export type * from './types.js';
export { emptyDirectory, publicKeyProblem, undeclaredInDirectory } from './blocks/directory.js';
// For other YAML files read the same way (`cplane test`'s files): positions, bounds and diagnostics.
export {
  readSourceFile,
  parseSourceFile,
  offsetIn,
  positionIn,
  type SourceFile,
  type OpenDocuments,
  type NodePosition,
} from './files/source-file.js';
export { diagnosticAt, sortDiagnostics } from './diagnostics.js';
export { reportSchemaErrors } from './files/schema-check.js';
export { formatConfigFolder, formatConfigText, type FormattedFile } from './files/format.js';
export { environmentNeeds, secretEnvironmentNames, type EnvironmentNeed } from './values/environment-needs.js';
export { deploymentWaves, fillIn, type Deployment } from './blocks/deployments.js';
export { addressVariableOf, boundAddress, sameAddress, shownAddress, TOKEN_NAME, tokenVariableOf } from './blocks/token-binding.js';
export { boundState, databaseOf, sameDatabase, type BoundState, type DatabaseAddress } from './blocks/state-binding.js';
export { checkPathInside, pathBounds, PATH_HINT, refusalWords, type PathBounds } from './files/path-bounds.js';
