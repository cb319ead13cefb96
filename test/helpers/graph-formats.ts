// Strict readers of the two graph formats cplane writes (`cplane graph`, the plan's Markdown), for tests: each
// accepts exactly the subset the renderers emit and throws on anything else, so an escaping mistake (a label
// that ends early, a statement smuggled in by a name) is a parse error or a node the test did not expect.

export interface ParsedGraph {
  /** Node id -> its label, decoded. */
  nodes: Map<string, string>;
  edges: [string, string][];
  /** Mermaid: class name -> node ids; DOT: node id -> its fill colour. */
  styles: Map<string, string[]>;
}

/** A Graphviz DOT `digraph` of cplane's subset: graph and node defaults, node statements with attributes, edges. */
export function parseDot(text: string): ParsedGraph {
  const tokens: { type: 'id' | 'quoted' | 'punct'; value: string }[] = [];
  for (let i = 0; i < text.length;) {
    const char = text[i]!;
    if (/\s/.test(char)) i++;
    else if (text.startsWith('->', i)) {
      tokens.push({ type: 'punct', value: '->' });
      i += 2;
    } else if ('{}[]=;,'.includes(char)) {
      tokens.push({ type: 'punct', value: char });
      i++;
    } else if (char === '"') {
      let value = '';
      for (i++; ; i++) {
        if (i >= text.length) throw new Error('DOT: unterminated string');
        const c = text[i]!;
        if (c === '"') break;
        if (c === '\n') throw new Error('DOT: line break in a string');
        if (c === '\\') {
          const next = text[++i];
          if (next !== '"' && next !== '\\') throw new Error(`DOT: unexpected escape \\${next}`);
          value += next;
        } else value += c;
      }
      i++;
      tokens.push({ type: 'quoted', value });
    } else {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
      if (!match) throw new Error(`DOT: unexpected ${JSON.stringify(char)} at ${i}`);
      tokens.push({ type: 'id', value: match[0] });
      i += match[0].length;
    }
  }
  let at = 0;
  const peek = () => tokens[at];
  const take = (value?: string) => {
    const token = tokens[at++];
    if (!token || (value !== undefined && (token.type !== 'punct' && token.type !== 'id' ? true : token.value !== value)))
      throw new Error(`DOT: expected ${value ?? 'a token'}, got ${JSON.stringify(token)}`);
    return token;
  };
  const id = () => {
    const token = take();
    if (token.type === 'punct') throw new Error(`DOT: expected an id, got ${token.value}`);
    return token.value;
  };
  const attributes = () => {
    const out = new Map<string, string>();
    take('[');
    while (peek()?.value !== ']' || peek()?.type !== 'punct') {
      const name = id();
      take('=');
      out.set(name, id());
      if (peek()?.type === 'punct' && peek()?.value === ',') take(',');
    }
    take(']');
    return out;
  };
  take('digraph');
  if (peek()?.type !== 'punct') id();
  take('{');
  const graph: ParsedGraph = { nodes: new Map(), edges: [], styles: new Map() };
  while (!(peek()?.type === 'punct' && peek()?.value === '}')) {
    if (peek()?.type === 'id' && peek()?.value === 'node') {
      take('node');
      attributes();
    } else {
      const first = id();
      if (peek()?.type === 'punct' && peek()?.value === '=') {
        take('=');
        id();
      } else if (peek()?.type === 'punct' && peek()?.value === '->') {
        take('->');
        const second = id();
        if (!graph.nodes.has(first) || !graph.nodes.has(second))
          throw new Error(`DOT: edge between undeclared nodes ${first} -> ${second}`);
        graph.edges.push([first, second]);
      } else {
        const attrs = attributes();
        if (graph.nodes.has(first)) throw new Error(`DOT: node ${first} declared twice`);
        graph.nodes.set(first, attrs.get('label') ?? first);
        if (attrs.has('fillcolor')) graph.styles.set(first, [attrs.get('fillcolor')!]);
      }
    }
    take(';');
  }
  take('}');
  if (at !== tokens.length) throw new Error('DOT: text after the graph');
  return graph;
}

const ENTITIES: Record<string, string> = { quot: '"', num: '#', amp: '&', lt: '<', gt: '>', grave: '`' };

/** A Mermaid `flowchart LR` of cplane's subset: `id["label"]`, `a --> b`, `classDef`, `class`; labels' entity codes decoded. */
export function parseMermaid(text: string): ParsedGraph {
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines[0] !== 'flowchart LR') throw new Error(`Mermaid: expected "flowchart LR", got ${JSON.stringify(lines[0])}`);
  const graph: ParsedGraph = { nodes: new Map(), edges: [], styles: new Map() };
  const classes = new Set<string>();
  for (const line of lines.slice(1)) {
    let m: RegExpExecArray | null;
    if ((m = /^ {2}(n\d+)\["([^"]*)"\]$/.exec(line))) {
      const label = m[2]!;
      if (/[<>&`]/.test(label) || /#(?!(quot|num|amp|lt|gt|grave);)/.test(label))
        throw new Error(`Mermaid: unescaped markup in label ${JSON.stringify(label)}`);
      if (graph.nodes.has(m[1]!)) throw new Error(`Mermaid: node ${m[1]} declared twice`);
      graph.nodes.set(
        m[1]!,
        label.replace(/#(quot|num|amp|lt|gt|grave);/g, (_, name: string) => ENTITIES[name]!),
      );
    } else if ((m = /^ {2}(n\d+) --> (n\d+)$/.exec(line))) {
      if (!graph.nodes.has(m[1]!) || !graph.nodes.has(m[2]!)) throw new Error(`Mermaid: edge between undeclared nodes: ${line}`);
      graph.edges.push([m[1]!, m[2]!]);
    } else if ((m = /^ {2}classDef ([a-z]+) fill:([a-z]+),stroke:([a-z]+)$/.exec(line))) {
      classes.add(m[1]!);
    } else if ((m = /^ {2}class (n\d+(?:,n\d+)*) ([a-z]+)$/.exec(line))) {
      if (!classes.has(m[2]!)) throw new Error(`Mermaid: class ${m[2]} used before its classDef`);
      graph.styles.set(m[2]!, m[1]!.split(','));
    } else throw new Error(`Mermaid: a line outside the grammar: ${JSON.stringify(line)}`);
  }
  return graph;
}

/** The graph's edges as `from -> to` between labels, sorted: what both formats must agree on. */
export function labelledEdges(graph: ParsedGraph): string[] {
  return graph.edges.map(([from, to]) => `${graph.nodes.get(from)} -> ${graph.nodes.get(to)}`).sort();
}
