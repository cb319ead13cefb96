// A module for the module stories: a team's gateway and CI token, in the caller's project, with the caller's credential.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The module: a gateway and its CI token for one team, in the caller's project, with the caller's credential. */
export const teamModule = `variables:
  team: { type: string }
  rpm: { type: integer, default: 60 }
  project: { type: string }
  credential: { type: string }
gateways:
  main:
    project: \${var.project}
    name: "\${var.team} gateway"
    slug: "gw-\${var.team}"
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: ["\${var.credential}"]
    settings:
      requestsPerMinute: \${var.rpm}
    tokens:
      ci: { scopes: [run] }
`;

export const callerConfig = `version: 1
projects:
  core: { description: Core }
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
modules:
  payments: { source: ./modules/team, inputs: { team: payments, rpm: 600, project: core, credential: openai } }
  search:   { source: ./modules/team, inputs: { team: search, rpm: 100, project: core, credential: openai } }
`;

export function writeModule(dir: string, yaml = teamModule): void {
  mkdirSync(join(dir, 'modules', 'team'), { recursive: true });
  writeFileSync(join(dir, 'modules', 'team', 'team.yaml'), yaml);
}
