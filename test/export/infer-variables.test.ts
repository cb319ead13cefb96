// Solving a configuration's templates against the live text export reads: the values a new deployment needs.
import { describe, expect, it } from 'vitest';
import type { ExportedFile } from '../../src/export/build-model.js';
import { inferVariables, solveTemplate } from '../../src/export/infer-variables.js';

const file = (entries: { address: string; local: string; entry: Record<string, unknown> }[]): ExportedFile =>
  ({
    name: 'x.yaml',
    description: [],
    entries: entries.map((e) => ({ ...e, kind: 'project', live: {}, comments: [], notes: [], children: [] })),
  }) as unknown as ExportedFile;

describe('solveTemplate', () => {
  it('solves each variable, one value for a variable used twice, and refuses text the template cannot make', () => {
    expect(solveTemplate('payments-${var.env}', 'payments-staging')).toEqual(new Map([['env', 'staging']]));
    expect(solveTemplate('${var.env}-x-${var.env}', 'prod-x-prod')).toEqual(new Map([['env', 'prod']]));
    expect(solveTemplate('${var.env}-x-${var.env}', 'prod-x-dev')).toBeUndefined();
    expect(solveTemplate('a.${var.env}', 'abstaging')).toBeUndefined();
    expect(solveTemplate('$${literal}-${var.env}', '${literal}-dev')).toEqual(new Map([['env', 'dev']]));
    expect(solveTemplate('${env.HOME}:${var.env}', '/home/x:dev')).toEqual(new Map([['env', 'dev']]));
  });
});

describe('inferVariables', () => {
  it('matches configured entries to live ones by name and solves every field, nested entries included', () => {
    // A secret's environment variable is export's own name (upper-cased), never the account's: it is not solved.
    const configured = [
      {
        variables: { env: { type: 'string' } },
        projects: {
          payments: {
            name: 'payments-${var.env}',
            description: '${var.team} payments',
            records: { key: { name: 'key-${var.env}', value: { env: 'KEY_${var.env}' } } },
          },
        },
      },
    ];
    const live = [
      file([
        {
          address: 'projects.payments-staging',
          local: 'payments-staging',
          entry: { description: 'web payments', records: { key_staging: { name: 'key-staging', value: { env: 'KEY_STAGING' } } } },
        },
      ]),
    ];
    const { values, conflicts } = inferVariables(configured, live);
    expect(values).toEqual(
      new Map([
        ['env', 'staging'],
        ['team', 'web'],
      ]),
    );
    expect(conflicts.size).toBe(0);
  });

  it('names both objects when two give a variable different values', () => {
    const configured = [{ projects: { a: { name: 'a-${var.env}' }, b: { name: 'b-${var.env}' } } }];
    const live = [
      file([
        { address: 'projects.a_staging', local: 'a_staging', entry: { name: 'a-staging' } },
        { address: 'projects.b_prod', local: 'b_prod', entry: { name: 'b-prod' } },
      ]),
    ];
    const { values, conflicts } = inferVariables(configured, live);
    expect(values.has('env')).toBe(false);
    expect(conflicts.get('env')!.map((e) => [e.address, e.value, e.live])).toEqual([
      ['projects.a', 'staging', 'a-staging'],
      ['projects.b', 'prod', 'b-prod'],
    ]);
  });
});
