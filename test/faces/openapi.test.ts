// The OpenAPI 3.1 document generated from the operation table: printed by `cplane openapi` (the real CLI),
// served by the emulator at /v1/openapi.json, valid for an established OpenAPI validator (Swagger Parser), with
// exactly the table's operations; and every operation, called as the document describes it, answers with a body
// that matches the document's success schema.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNames, operations, type OperationName, type OperationSpec } from '../../src/api/index.js';
import { fixtures, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../e2e/helpers.js';
import { acme, arrange, calls, type Ids } from './operation-calls.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const root = join(import.meta.dirname, '..', '..');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a parsed JSON document
const methods = ['get', 'post', 'patch', 'delete'] as const;

let emulator: RunningEmulator;
let ids: Ids;
let home: string;
let printed: Json;
/** The document with every $ref resolved, as Swagger Parser returns it after validation. */
let resolved: Json;

beforeAll(async () => {
  emulator = await startEmulator();
  ids = await arrange(emulator.url);
  home = mkdtempSync(join(tmpdir(), 'cplane-openapi-'));
  const run = await runCli(['openapi'], { PATH: process.env.PATH, HOME: home }, home);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  printed = JSON.parse(run.stdout) as Json;
  resolved = (await SwaggerParser.validate(structuredClone(printed) as never)) as Json;
}, 120_000);
afterAll(async () => {
  await emulator.close();
  rmSync(home, { recursive: true, force: true });
});

function operationsOf(doc: Json): { path: string; method: string; operation: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    methods.filter((m) => (item as Json)[m]).map((method) => ({ path, method, operation: (item as Json)[method] as Json })),
  );
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1, valid for Swagger Parser, and the one the emulator serves at /v1/openapi.json', async () => {
    expect(printed.openapi).toBe('3.1.0');
    expect(resolved.paths).toBeDefined();
    const served = await fetch(`${emulator.url}/v1/openapi.json`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('application/json');
    expect(await served.json()).toEqual(printed);
  });

  it('has exactly the operations of the table, named as in the table, with their identity', () => {
    const all = operationsOf(printed);
    expect(all).toHaveLength(operationNames.length);
    expect(all.map((o) => o.operation.operationId).sort()).toEqual([...operationNames].sort());
    for (const { path, method, operation } of all) {
      const spec: OperationSpec = operations[operation.operationId as OperationName];
      expect([path, method.toUpperCase(), operation['x-identity']]).toEqual([spec.path, spec.method, spec.identity]);
    }
    expect(all.filter((o) => o.operation['x-identity'] === 'SA')).toHaveLength(
      operationNames.filter((name) => operations[name].identity === 'SA').length,
    );
  });

  it('declares bearer security, x-account-id on account operations, Idempotency-Key on writes, and the error envelope', () => {
    expect(printed.security).toEqual([{ bearer: [] }]);
    expect(printed.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Redocly's tag-description rule: every tag says what its operations are about.
    for (const tag of printed.tags as { name: string; description: string }[])
      expect(tag.description, tag.name).not.toMatch(/^Operations under/);
    // Tokens are opaque (`sk-svc-pat-...`), not JWTs: no bearerFormat claims one.
    expect(printed.components.securitySchemes.bearer).not.toHaveProperty('bearerFormat');
    for (const { method, operation } of operationsOf(resolved)) {
      const spec: OperationSpec = operations[operation.operationId as OperationName];
      const headers = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'header').map((p) => p.name as string);
      expect(headers.includes('x-account-id'), operation.operationId).toBe(spec.accountScoped);
      expect(headers.includes('Idempotency-Key'), operation.operationId).toBe(method !== 'get');
      expect(Boolean(operation.requestBody), operation.operationId).toBe(spec.body !== undefined);
      const error = operation.responses['404'].content['application/json'].schema as Json;
      expect(error.required).toEqual(['ok', 'error']);
      expect(error.properties.error.required).toEqual(['code', 'message']);
    }
  });

  it('links docs/api-assumptions.md from its description', () => {
    expect(printed.info.description).toContain('[docs/api-assumptions.md](docs/api-assumptions.md)');
    expect(existsSync(join(root, 'docs', 'api-assumptions.md'))).toBe(true);
  });
});

describe('every operation answers as the document says', () => {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

  /** Builds the request from the document's own parameters: path template, query parameters and headers. */
  function request(operation: Json, path: string, method: string, name: OperationName): { url: string; init: RequestInit } {
    const call = calls[name](ids);
    const params = call.params ?? {};
    const query = new URLSearchParams();
    let filled = path;
    for (const parameter of (operation.parameters ?? []) as Json[]) {
      const value = params[parameter.name as string];
      if (parameter.in === 'path') filled = filled.replace(`{${parameter.name as string}}`, encodeURIComponent(value!));
      if (parameter.in === 'query' && value !== undefined) query.set(parameter.name as string, value);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${fixtures.tokens[call.as ?? 'admin']}` };
    if (((operation.parameters ?? []) as Json[]).some((p) => p.name === 'x-account-id')) headers['x-account-id'] = acme;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const search = query.toString();
    return {
      url: `${emulator.url}/v1${filled}${search ? `?${search}` : ''}`,
      init: { method: method.toUpperCase(), headers, ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}) },
    };
  }

  for (const name of operationNames) {
    it(`${name}: the answer matches the document's 200 schema, envelope included`, async () => {
      const found = operationsOf(resolved).find((o) => o.operation.operationId === name)!;
      const { url, init } = request(found.operation, found.path, found.method, name);
      const res = await fetch(url, init);
      const body: unknown = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(200);
      const validate = ajv.compile(found.operation.responses['200'].content['application/json'].schema as object);
      expect(validate(body), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    });
  }
});
