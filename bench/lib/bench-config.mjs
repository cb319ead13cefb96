// The configuration the apply benches write: per group of five resources a project, a credential and a gateway
// with two tokens (dependency depth 3), so `groups` is resources / 5.
export function benchConfig(groups) {
  const lines = ['version: 1', 'projects:'];
  for (let i = 0; i < groups; i++) lines.push(`  p${i}:`, `    name: bench-p${i}`, `    description: bench`);
  lines.push('credentials:');
  for (let i = 0; i < groups; i++)
    lines.push(`  c${i}:`, '    provider: openai', `    label: bench-c${i}`, '    secret: { env: OPENAI_API_KEY }');
  lines.push('gateways:');
  for (let i = 0; i < groups; i++) {
    lines.push(
      `  g${i}:`,
      `    project: p${i}`,
      `    name: bench-g${i}`,
      `    slug: bench-g${i}`,
      '    defaultProvider: openai',
      '    defaultModel: gpt-4o-mini',
      `    credentials: [c${i}]`,
    );
    lines.push('    tokens:', '      a: { scopes: [run] }', '      b: { scopes: [read_logs] }');
  }
  return `${lines.join('\n')}\n`;
}
