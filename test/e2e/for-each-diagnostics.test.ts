// Diagnostics of forEach (`cplane validate`, run in-process: the process is not the subject): a typo inside a
// template is reported at the template's file:line:col and names the instance it was found in; a forEach whose
// keys depend on a variable without a value is refused, naming the variable.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { coreAndOpenai, teamGateways, world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(async () => w.close());

const main = `version: 1
variables:
  teams:
    type: map
    default: { search: { rpm: 100 }, payments: { rpm: 600 } }
${coreAndOpenai('openai-diagnostics')}`;
const gateways = (settings: string) => teamGateways('${var.teams}', { body: `    settings:\n${settings}` });

it('a typo inside the template: its line in gateways.yaml, and the instance', async () => {
  w.config(main);
  writeFileSync(join(w.dir, 'gateways.yaml'), gateways('      requestsPerMinute: ${each.value.rmp}\n'));
  const run = await w.run(['validate', w.dir]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    'infra/gateways.yaml:10:26: error: ${each.value.rmp}: each.value has no field "rmp" in gateway.team[search]; did you mean "rpm"?\n',
  );
  // Found in every instance, said once.
  expect(run.stderr.match(/error:/g)).toHaveLength(1);

  writeFileSync(join(w.dir, 'gateways.yaml'), gateways('      requestsPerMinte: ${each.value.rpm}\n'));
  const key = await w.run(['validate', w.dir]);
  expect(key.code).toBe(1);
  expect(key.stderr).toContain(
    'infra/gateways.yaml:10:7: error: Unknown key "requestsPerMinte" in "settings" of gateway.team[search]; did you mean "requestsPerMinute"?\n',
  );
});

it("a value of one key that the template cannot take: the template's line, that key's instance", async () => {
  w.config(main.replace('payments: { rpm: 600 }', 'payments: { rpm: lots }'));
  writeFileSync(join(w.dir, 'gateways.yaml'), gateways('      requestsPerMinute: ${each.value.rpm}\n'));
  const run = await w.run(['validate', w.dir]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    'infra/gateways.yaml:10:26: error: Wrong type for "settings.requestsPerMinute" in gateway.team[payments]: expected an integer or null, got a string\n',
  );
});

it('keys that depend on a variable without a value are refused, naming it', async () => {
  w.config(main.replace('    default: { search: { rpm: 100 }, payments: { rpm: 600 } }\n', ''));
  writeFileSync(join(w.dir, 'gateways.yaml'), gateways('      requestsPerMinute: ${each.value.rpm}\n'));
  const run = await w.run(['validate', w.dir]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    'infra/gateways.yaml:3:14: error: The keys of gateway.team depend on variable "teams", which has no value: forEach keys must be known before planning\n',
  );
  const given = await w.run(['validate', w.dir, '--var', 'teams={"ops":{"rpm":5}}']);
  expect(given.stderr).toBe('');
  expect(given.code).toBe(0);
});
