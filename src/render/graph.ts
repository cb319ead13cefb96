/**
 * An address graph (plan-model/address-graph.ts) as text for people's tools: a Mermaid `flowchart` (which GitHub
 * draws in Markdown) or a Graphviz DOT `digraph`. An arrow goes from an address to the one that goes first, as
 * `terraform graph` draws them. In a plan's graph each node is coloured by its action's tone and labelled with the
 * action's symbol, so the colour is never the only sign. Addresses are names from the configuration or the account:
 * each is written through the escaping of its place (src/text/escape-for.ts); Mermaid node ids are our own (`n0`).
 */
import { actionWords, type AddressGraph, type Tone } from '../plan-model/index.js';
import { dotString, mermaidLabel } from '../text/escape-for.js';

export type GraphFormat = 'mermaid' | 'dot';

/** Fill and line colour of each tone, by names CSS (Mermaid) and Graphviz (X11) both know. */
const toneColours: Record<Tone, { fill: string; line: string }> = {
  add: { fill: 'honeydew', line: 'darkgreen' },
  change: { fill: 'lightyellow', line: 'darkgoldenrod' },
  replace: { fill: 'lavender', line: 'purple' },
  remove: { fill: 'mistyrose', line: 'firebrick' },
  import: { fill: 'aliceblue', line: 'royalblue' },
  plain: { fill: 'whitesmoke', line: 'dimgray' },
};

const labelOf = (node: AddressGraph['nodes'][number]) => {
  const symbol = node.action ? actionWords[node.action].symbol.trim() : '';
  return symbol ? `${symbol} ${node.address}` : node.address;
};

export function renderGraph(graph: AddressGraph, format: GraphFormat): string {
  return format === 'dot' ? renderGraphDot(graph) : renderGraphMermaid(graph);
}

export function renderGraphMermaid(graph: AddressGraph): string {
  const id = new Map(graph.nodes.map((node, i) => [node.address, `n${i}`]));
  const lines = ['flowchart LR'];
  for (const node of graph.nodes) lines.push(`  ${id.get(node.address)}["${mermaidLabel({ name: labelOf(node) })}"]`);
  for (const edge of graph.edges) lines.push(`  ${id.get(edge.from)} --> ${id.get(edge.to)}`);
  const toned = new Map<Tone, string[]>();
  for (const node of graph.nodes)
    if (node.action) toned.set(actionWords[node.action].tone, [...(toned.get(actionWords[node.action].tone) ?? []), id.get(node.address)!]);
  for (const [tone, ids] of toned)
    lines.push(`  classDef ${tone} fill:${toneColours[tone].fill},stroke:${toneColours[tone].line}`, `  class ${ids.join(',')} ${tone}`);
  return `${lines.join('\n')}\n`;
}

export function renderGraphDot(graph: AddressGraph): string {
  const lines = ['digraph cplane {', '  rankdir = "LR";', '  node [shape = "box"];'];
  for (const node of graph.nodes) {
    const colours = node.action ? toneColours[actionWords[node.action].tone] : undefined;
    const style = colours
      ? `, style = "filled", fillcolor = ${dotString({ name: colours.fill })}, color = ${dotString({ name: colours.line })}`
      : '';
    lines.push(`  ${dotString({ name: node.address })} [label = ${dotString({ name: labelOf(node) })}${style}];`);
  }
  for (const edge of graph.edges) lines.push(`  ${dotString({ name: edge.from })} -> ${dotString({ name: edge.to })};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
