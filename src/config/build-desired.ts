/**
 * From validated, interpolated files to desired resources: defaults filled,
 * addresses made, implied dependency edges added, and everything that spans
 * files checked: duplicate addresses, references by local name, the default
 * provider, explicit `dependsOn` targets and dependency cycles.
 */
import { dirname, resolve } from 'node:path';
import { diagnosticAt, type DiagnosticSink } from './diagnostics.js';
import { pathKey, type SourceFile } from './source-file.js';
import { didYouMean } from './suggest.js';
import type { ConfigFile, LifecycleConfig } from './config-file.js';
import type { AttributesByKind, DesiredResource, Lifecycle, ResourceKind, SecretSource } from './types.js';

export interface LoadedFile {
  file: SourceFile;
  config: ConfigFile;
}

type Path = (string | number)[];

interface Declared {
  resource: DesiredResource;
  file: SourceFile;
  path: Path;
  /** Explicit `dependsOn` entries, for positions in cycle and reference errors. */
  explicit: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function lifecycleOf(config: LifecycleConfig<string> | undefined): Lifecycle {
  return { preventDestroy: config?.preventDestroy ?? false, ignoreChanges: [...(config?.ignoreChanges ?? [])] };
}

function secretOf(source: SecretSource, file: SourceFile): SecretSource {
  if ('file' in source) return { file: resolve(dirname(file.path), source.file) };
  if ('generate' in source) return { generate: { length: source.generate.length } };
  return { env: source.env };
}

function offsetOf(file: SourceFile, path: Path, part: 'key' | 'value' = 'key'): number {
  const position = file.positions.get(pathKey(path));
  return (part === 'key' ? position?.key : undefined) ?? position?.value[0] ?? 0;
}

function rangeOf(file: SourceFile, path: Path) {
  const { line, col } = file.lines.linePos(offsetOf(file, path));
  return { file: file.display, line, col };
}

export function buildDesired(files: LoadedFile[], sink: DiagnosticSink): DesiredResource[] {
  const declared = new Map<string, Declared>();

  function add<K extends ResourceKind>(
    kind: K, address: string, localName: string, file: SourceFile, path: Path,
    attributes: AttributesByKind[K], secrets: Record<string, SecretSource>,
    lifecycle: LifecycleConfig<string> | undefined, implied: string[], explicit: string[] | undefined,
  ): boolean {
    const earlier = declared.get(address);
    if (earlier) {
      const first = rangeOf(earlier.file, earlier.path);
      sink.push(diagnosticAt(file, offsetOf(file, path), {
        code: 'duplicate_address',
        summary: `Duplicate address ${address}: declared in ${first.file}:${first.line}:${first.col} and again here`,
        detail: 'Each resource may be declared once across all files of the configuration; rename or remove one of them.',
        end: offsetOf(file, path) + localName.length,
      }));
      return false;
    }
    const resource: DesiredResource<K> = {
      kind, address, localName, attributes, secrets,
      lifecycle: lifecycleOf(lifecycle),
      dependsOn: [...new Set([...implied, ...(explicit ?? [])])],
      source: rangeOf(file, path),
    };
    declared.set(address, { resource: resource as unknown as DesiredResource, file, path, explicit: explicit ?? [] });
    return true;
  }

  for (const { file, config } of files) {
    for (const [p, project] of Object.entries(config.projects ?? {})) {
      const path = ['projects', p];
      const added = add('project', `project.${p}`, p, file, path,
        { name: project.name ?? p, description: project.description ?? '', active: project.active ?? true },
        {}, project.lifecycle, [], project.dependsOn);
      if (!added) continue;
      for (const [r, record] of Object.entries(project.records ?? {})) {
        const attributes: AttributesByKind['record'] = { project: p, name: record.name ?? r };
        if (record.tags !== undefined) attributes.tags = [...record.tags];
        if (record.secretDueAt !== undefined) attributes.secretDueAt = record.secretDueAt;
        if (record.rotationIntervalDays !== undefined) attributes.rotationIntervalDays = record.rotationIntervalDays;
        if (record.format !== undefined) attributes.format = record.format;
        add('record', `record.${p}/${r}`, r, file, [...path, 'records', r], attributes,
          record.value ? { value: secretOf(record.value, file) } : {}, record.lifecycle, [`project.${p}`], record.dependsOn);
      }
    }
    for (const [c, credential] of Object.entries(config.credentials ?? {})) {
      add('credential', `credential.${c}`, c, file, ['credentials', c],
        { provider: credential.provider, label: credential.label ?? c, baseUrl: credential.baseUrl ?? null },
        { secret: secretOf(credential.secret, file) }, credential.lifecycle, [], credential.dependsOn);
    }
  }

  // Gateways come second: their references need every project and credential of every file.
  const providerOf = (c: string) => (declared.get(`credential.${c}`)?.resource.attributes as AttributesByKind['credential'] | undefined)?.provider;
  const names = (kind: ResourceKind) => [...declared.values()].filter((d) => d.resource.kind === kind).map((d) => d.resource.localName);
  const unknownReference = (file: SourceFile, path: Path, what: string, name: string, known: string[], owner: string) => {
    const offset = offsetOf(file, path, 'value');
    sink.push(diagnosticAt(file, offset, {
      code: 'unknown_reference',
      summary: `Unknown ${what} "${name}" in ${owner}${didYouMean(name, known)}`,
      detail: known.length ? `Declared ${what}s: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', ...' : ''}.` : `No ${what} is declared in this configuration.`,
      end: offset + name.length,
    }));
  };

  for (const { file, config } of files) {
    for (const [g, gateway] of Object.entries(config.gateways ?? {})) {
      const path = ['gateways', g];
      const owner = `gateway "${g}"`;
      if (!declared.has(`project.${gateway.project}`)) unknownReference(file, [...path, 'project'], 'project', gateway.project, names('project'), owner);
      gateway.credentials.forEach((c, i) => {
        if (!declared.has(`credential.${c}`)) unknownReference(file, [...path, 'credentials', i], 'credential', c, names('credential'), owner);
      });
      const providers = gateway.credentials.map(providerOf).filter((p): p is string => p !== undefined);
      const defaultProvider = gateway.defaultProvider ?? providers[0] ?? '';
      if (gateway.defaultProvider !== undefined && !UUID.test(gateway.defaultProvider) && providers.length > 0 &&
          !providers.some((p) => UUID.test(p) || p === gateway.defaultProvider)) {
        const offset = offsetOf(file, [...path, 'defaultProvider'], 'value');
        sink.push(diagnosticAt(file, offset, {
          code: 'default_provider_mismatch',
          summary: `defaultProvider "${gateway.defaultProvider}" of ${owner} is not the provider of any attached credential${didYouMean(gateway.defaultProvider, providers)}`,
          detail: `The attached credentials are for: ${[...new Set(providers)].join(', ')}. Attach a credential of that provider, or choose one of these.`,
          end: offset + gateway.defaultProvider.length,
        }));
      }
      const attributes: AttributesByKind['gateway'] = {
        project: gateway.project, name: gateway.name ?? g, slug: gateway.slug ?? g, defaultProvider,
        defaultModel: gateway.defaultModel, credentials: [...gateway.credentials],
      };
      if (gateway.settings !== undefined) attributes.settings = structuredClone(gateway.settings);
      const added = add('gateway', `gateway.${g}`, g, file, path, attributes, {}, gateway.lifecycle,
        [`project.${gateway.project}`, ...gateway.credentials.map((c) => `credential.${c}`)], gateway.dependsOn);
      if (!added) continue;
      const otel = gateway.otelExport;
      if (otel) {
        const enabled = otel.enabled ?? true;
        if (enabled && (otel.endpoint === undefined || otel.endpoint === null)) {
          sink.push(diagnosticAt(file, offsetOf(file, [...path, 'otelExport']), {
            code: 'missing_key',
            summary: `Missing required key "endpoint" in the OTel export of ${owner}: an enabled export needs an endpoint`,
            detail: 'Add endpoint: https://..., or set enabled: false.',
          }));
        }
        const headers = Object.entries(otel.headers ?? {}).sort(([a], [b]) => a.localeCompare(b));
        add('otel_export', `otel_export.${g}`, g, file, [...path, 'otelExport'],
          { gateway: g, enabled, endpoint: otel.endpoint ?? null, exportMetrics: otel.exportMetrics ?? true, exportTraces: otel.exportTraces ?? true, headerNames: headers.map(([name]) => name) },
          Object.fromEntries(headers.map(([name, source]) => [`headers.${name}`, secretOf(source, file)])),
          otel.lifecycle, [`gateway.${g}`], otel.dependsOn);
      }
      for (const [t, token] of Object.entries(gateway.tokens ?? {})) {
        add('gateway_token', `gateway_token.${g}/${t}`, t, file, [...path, 'tokens', t],
          { gateway: g, name: token.name ?? t, scopes: [...token.scopes], expiresInDays: token.expiresInDays ?? null, allowedModels: [...(token.allowedModels ?? [])], rateLimitPerMin: token.rateLimitPerMin ?? null },
          {}, token.lifecycle, [`gateway.${g}`], token.dependsOn);
      }
    }
  }

  checkExplicitDependencies(declared, sink);
  checkCycles(declared, sink);
  return [...declared.values()].map((d) => d.resource);
}

function checkExplicitDependencies(declared: Map<string, Declared>, sink: DiagnosticSink): void {
  for (const { resource, file, path, explicit } of declared.values()) {
    explicit.forEach((address, i) => {
      if (declared.has(address)) return;
      const offset = offsetOf(file, [...path, 'dependsOn', i], 'value');
      sink.push(diagnosticAt(file, offset, {
        code: 'unknown_reference',
        summary: `Unknown address "${address}" in dependsOn of ${resource.address}${didYouMean(address, declared.keys())}`,
        end: offset + address.length,
      }));
      resource.dependsOn = resource.dependsOn.filter((a) => a !== address);
    });
  }
}

/** Each cycle is reported once, at an explicit `dependsOn` entry that closes it (implied edges alone cannot cycle). */
function checkCycles(declared: Map<string, Declared>, sink: DiagnosticSink): void {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (address: string) => {
    state.set(address, 'visiting');
    stack.push(address);
    for (const next of declared.get(address)?.resource.dependsOn ?? []) {
      if (state.get(next) === 'visiting') {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        reportCycle(cycle, declared, sink);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(address, 'done');
  };
  for (const address of [...declared.keys()].sort()) if (!state.has(address)) visit(address);
}

function reportCycle(cycle: string[], declared: Map<string, Declared>, sink: DiagnosticSink): void {
  for (let i = 0; i < cycle.length - 1; i++) {
    const from = declared.get(cycle[i]!)!;
    const index = from.explicit.indexOf(cycle[i + 1]!);
    if (index === -1) continue;
    const offset = offsetOf(from.file, [...from.path, 'dependsOn', index], 'value');
    sink.push(diagnosticAt(from.file, offset, {
      code: 'dependency_cycle',
      summary: `Dependency cycle: ${cycle.join(' -> ')}`,
      detail: 'Resources cannot depend on each other in a loop; remove this dependsOn entry or another one of the cycle.',
      end: offset + cycle[i + 1]!.length,
    }));
    return;
  }
}
