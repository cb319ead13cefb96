/**
 * The PostgreSQL test server starts wherever the clone sits: from binaries inside
 * a private (0700) folder, as root, the server's `postgres` user still reaches a
 * readable copy. A server that cannot start gives one error naming the cause.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { installedBinaries, startEmbeddedPostgres } from '../helpers/embedded-postgres-server.js';

const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

function folder(mode: number): string {
  const path = mkdtempSync(join(tmpdir(), 'cplane-harness-'));
  chmodSync(path, mode);
  folders.push(path);
  return path;
}

describe('the embedded PostgreSQL test server', () => {
  it('starts from binaries inside a 0700 folder and accepts connections', async () => {
    // The binaries as a clone in a private folder would hold them: only the owner can reach them.
    const privateFolder = folder(0o700);
    mkdirSync(join(privateFolder, 'clone'));
    const nativeDir = join(privateFolder, 'clone', 'native');
    symlinkSync((await installedBinaries()).nativeDir, nativeDir);
    if (process.getuid?.() === 0) {
      // As root the server runs as `postgres`, which cannot reach anything under the private folder.
      expect(spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', `test -x ${nativeDir}/bin/initdb`]).status).not.toBe(0);
    }
    const server = await startEmbeddedPostgres({ nativeDir, cacheRoot: folder(0o755), port: await freePort() });
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
      await client.end();
      expect(rows[0]!.one).toBe(1);
    } finally {
      await server.stop();
    }
  });

  it('that cannot start rejects with one error naming the cause, and no unhandled error event', async () => {
    const empty = folder(0o755);
    const start = startEmbeddedPostgres({ nativeDir: join(empty, 'missing'), cacheRoot: folder(0o755), port: await freePort() });
    await expect(start).rejects.toThrow(/missing/);
  });
});

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
