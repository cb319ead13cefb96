/**
 * The name of a resource kind as the lower layers see it: a string. The kinds
 * themselves are defined in src/providers/ (one module each); config/, state/ and the plan carry the name
 * without knowing the set, so that adding a kind never touches them.
 */
export type ResourceKind = string;

/** Where a write-only value comes from. `file` paths are absolute after loading. */
export type SecretSource = { env: string } | { file: string } | { generate: { length: number } } | OutputSource;

/**
 * The one-time secret `name` another address sealed in state (a gateway token's `plaintext` delivered to a
 * record: `deliverTo`). Never written in a configuration: the loader sets it on the receiving resource.
 */
export interface OutputSource {
  output: { address: string; name: string };
}

/** A place in a configuration file, 1-based: where a diagnostic, a resource or a policy finding points. */
export interface SourceRange {
  file: string;
  line: number;
  col: number;
}
