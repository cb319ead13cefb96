// `cplane graph`: the quickstart's dependency graph, offline, in both formats (golden files, and read back by the
// strict readers of test/helpers/graph-formats.ts), a bad --format, and forEach keys written to break out of a
// Mermaid label or a DOT string, which come out as labels and nothing else.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderGraphDot, renderGraphMermaid } from '../../src/render/index.js';
import { escapeControl } from '../../src/text/safe-text.js';
import { runCli } from '../e2e/helpers.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { labelledEdges, parseDot, parseMermaid } from '../helpers/graph-formats.js';
import { HOSTILE } from '../text/hostile-strings.js';

const root = join(import.meta.dirname, '../..');
const golden = (name: string) => readFileSync(join(import.meta.dirname, 'golden', name), 'utf8');
const env = { PATH: process.env.PATH, NO_COLOR: '1' };

describe('cplane graph of a configuration', () => {
  it('draws the quickstart as a Mermaid flowchart, byte for byte the golden file', async () => {
    // The built binary once, as a user runs it; the other drawings run the CLI's entry in-process.
    const run = await runCli(['graph', 'examples/quickstart'], env, root);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(golden('graph-quickstart.mmd'));
  });

  it('draws it as DOT with --format dot, byte for byte the golden file', async () => {
    const run = await runInProcess(['graph', 'examples/quickstart', '--format', 'dot'], env, root);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(golden('graph-quickstart.dot'));
  });

  it('both formats read back as the same graph: every resource, an arrow from each to what it needs', () => {
    const mermaid = parseMermaid(golden('graph-quickstart.mmd'));
    const dot = parseDot(golden('graph-quickstart.dot'));
    expect([...dot.nodes.values()]).toEqual([...mermaid.nodes.values()]);
    expect([...mermaid.nodes.values()]).toEqual([
      'project.payments',
      'credential.openai-prod',
      'record.payments/stripe-key',
      'record.payments/webhook-signing-secret',
      'gateway.prod',
      'gateway_token.prod/ci',
      'gateway_token.prod/dashboards',
      'otel_export.prod',
    ]);
    expect(labelledEdges(dot)).toEqual(labelledEdges(mermaid));
    expect(labelledEdges(mermaid)).toEqual([
      'gateway.prod -> credential.openai-prod',
      'gateway.prod -> project.payments',
      'gateway_token.prod/ci -> gateway.prod',
      'gateway_token.prod/dashboards -> gateway.prod',
      'otel_export.prod -> gateway.prod',
      'record.payments/stripe-key -> project.payments',
      'record.payments/webhook-signing-secret -> project.payments',
    ]);
  });

  it('refuses an unknown --format, naming the two it knows', async () => {
    const run = await runInProcess(['graph', 'examples/quickstart', '--format', 'svg'], env, root);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Unknown --format "svg".');
    expect(run.stderr).toContain('Use --format mermaid (the default) or --format dot.');
    expect(run.stdout).toBe('');
  });

  it("prints the configuration's errors, at their line, and exits 1 when it does not load", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cplane-graph-'));
    try {
      writeFileSync(join(dir, 'main.yaml'), 'version: 1\naccount: acc_1\nprojects:\n  core:\n    dependsOn: [project.nowhere]\n');
      const run = await runInProcess(['graph', dir], env, root);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('main.yaml:5:');
      expect(run.stderr).toContain('Unknown address "project.nowhere" in dependsOn of project.core');
      expect(run.stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hostile names', () => {
  // forEach keys may hold anything printable but `[`, `]` and `/`: quotes, backslashes, markup, entity codes.
  const keys = [
    'x" --> evil("pwned',
    'back\\slash"',
    '<img src=x onerror=alert(1)>',
    '`md` #quot; &amp;',
    '#35; %% comment',
    '}; digraph x {',
    'a\\"b',
  ];
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cplane-graph-'));
    const forEach = keys.map((key) => `      ${JSON.stringify(key)}: {}`).join('\n');
    writeFileSync(
      join(dir, 'main.yaml'),
      `version: 1\naccount: acc_1\nprojects:\n  core: { description: Core }\ncredentials:\n  openai: { provider: openai, label: L, secret: { env: OPENAI_API_KEY } }\ngateways:\n  team:\n    forEach:\n${forEach}\n    project: core\n    name: "team \${each.key}"\n    defaultModel: gpt-4o-mini\n    credentials: [openai]\n`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['mermaid', 'dot'])(
    'in %s: each address is one node whose label reads back exactly, and nothing else is added',
    async (format) => {
      const run = await runInProcess(['graph', dir, '--format', format], env, root);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const graph = format === 'dot' ? parseDot(run.stdout) : parseMermaid(run.stdout);
      const gateways = keys.map((key) => `gateway.team[${key}]`);
      expect([...graph.nodes.values()].sort()).toEqual(['credential.openai', 'project.core', ...gateways].sort());
      expect(labelledEdges(graph)).toEqual(gateways.flatMap((g) => [`${g} -> credential.openai`, `${g} -> project.core`]).sort());
    },
  );

  it("every hostile string of the escaping tests, as an address in a plan's graph, reads back as itself in both formats", () => {
    const graph = {
      nodes: HOSTILE.map((address, i) => ({
        address: `gateway.k${i}[${address}]`,
        kind: 'gateway',
        action: i % 2 ? ('create' as const) : ('replace' as const),
      })),
      edges: HOSTILE.slice(1).map((_, i) => ({ from: `gateway.k${i + 1}[${HOSTILE[i + 1]}]`, to: `gateway.k${i}[${HOSTILE[i]}]` })),
    };
    const labels = graph.nodes.map((n, i) => `${i % 2 ? '+' : '-/+'} ${escapeControl(n.address)}`);
    const mermaid = parseMermaid(renderGraphMermaid(graph));
    const dot = parseDot(renderGraphDot(graph));
    expect([...mermaid.nodes.values()]).toEqual(labels);
    expect([...dot.nodes.values()]).toEqual(labels);
    expect(labelledEdges(mermaid)).toEqual(labelledEdges(dot));
    expect(mermaid.edges).toHaveLength(HOSTILE.length - 1);
    // Coloured by action: the replaced nodes in one class, the created in another.
    expect(mermaid.styles.get('replace')).toHaveLength(Math.ceil(HOSTILE.length / 2));
    expect(mermaid.styles.get('add')).toHaveLength(Math.floor(HOSTILE.length / 2));
  });
});
