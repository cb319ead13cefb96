/**
 * Test helpers: write a configuration folder into a fresh temporary folder and
 * load it from there, so diagnostics name files as `main.yaml`. Each folder is
 * removed when the test that wrote it ends (a hook of this module's own would
 * run for the first file that imports it only: the files of a worker share
 * one module graph).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { LoadOptions } from '../../src/config/index.js';
import { loadConfiguration } from '../../src/providers/index.js';

export function writeConfig(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-config-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

export async function load(files: Record<string, string | Buffer>, options: Omit<LoadOptions, 'kinds'> = {}) {
  const dir = writeConfig(files);
  return { dir, ...(await loadConfiguration('.', { env: {}, ...options, cwd: dir })) };
}

/** A small valid configuration to start bad ones from. */
export const BASE = `version: 1
projects:
  payments:
    description: Payment services
    records:
      stripe-key:
        rotationIntervalDays: 90
credentials:
  openai-prod:
    provider: openai
    secret: { env: OPENAI_API_KEY }
gateways:
  prod:
    project: payments
    defaultModel: gpt-4o-mini
    credentials: [openai-prod]
`;
