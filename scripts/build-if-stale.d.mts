/** Why the build in `root` cannot be trusted to be the sources' (missing, or older than a source), or undefined when it can. */
export declare function staleBuild(root: string): string | undefined;
