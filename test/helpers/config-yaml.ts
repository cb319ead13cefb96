// Configuration text that the loader, planner and end-to-end tests share, written once: change a shape here and
// every story that uses it follows. Tests that assert a file:line:col count lines in what these return.

/** The project `core` and the credential `openai` that gateway stories attach gateways to, as YAML sections. */
export function coreAndOpenai(label: string): string {
  return `projects:\n  core: { description: Core }\ncredentials:\n  openai: { provider: openai, label: ${label}, secret: { env: OPENAI_API_KEY } }\n`;
}

/**
 * The forEach gateway `team` (in `core`, through `openai`) as a `gateways:` section: one instance per key of
 * `forEach` (`${var.teams}`, or an inline list or map). `name` is left out when not given; `body` adds the
 * entry's own keys (4-space indent: settings, otelExport, tokens). Its `forEach:` is on line 3, column 14.
 */
export function teamGateways(forEach: string, options: { name?: string; slug?: string; body?: string } = {}): string {
  const name = options.name === undefined ? '' : `    name: ${options.name}\n`;
  return `gateways:
  team:
    forEach: ${forEach}
    project: core
${name}    slug: ${options.slug ?? 'gw-${each.key}'}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
${options.body ?? ''}`;
}
