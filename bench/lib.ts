/** What the benches share: where results go, how the machine is described, the throw-away database. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const BENCHMARKS_FILE = path.resolve(__dirname, '../docs/BENCHMARKS.md');

/** Replaces the section (from its "## " heading to the next one) or appends it; other sections stay. */
export function writeSection(file: string, section: string) {
  const header = "# Benchmarks\n\nFigures measured on the project's own machine; each section names the command that produced it.\n\n";
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : header;
  const title = section.split('\n')[0];
  const start = current.indexOf(`${title}\n`);
  let next: string;
  if (start < 0) next = `${current.replace(/\n*$/, '\n\n')}${section}`;
  else {
    const after = current.indexOf('\n## ', start + title.length);
    next = current.slice(0, start) + section + (after < 0 ? '' : `\n${current.slice(after + 1)}`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, next.replace(/\n*$/, '\n'));
}

const loads = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');

/** "- Machine: …" line of a section: cores, CPU, memory, OS, Node, load at start and end. */
export function machineLine(loadAtStart: number[]): string {
  const cpu = os.cpus();
  return `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}; load average (1/5/15 min) ${loads(loadAtStart)} at start, ${loads(os.loadavg())} at the end (other processes share the machine).`;
}

export async function dropDatabase(adminDatabaseUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: adminDatabaseUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  } finally {
    await admin.end();
  }
}

/**
 * The end of a bench run: stops its server child, closes its database handle, drops the
 * throw-away database and this run's Redis keys, then stops the servers it provisioned.
 */
export async function cleanUpRun(o: {
  child: import('node:child_process').ChildProcess | null;
  db: { destroy(): Promise<void> };
  infra: { adminDatabaseUrl: string; redisUrl: string; stop(): Promise<void> };
  dbName: string;
  queuePrefix: string;
}) {
  const { child } = o;
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await o.db.destroy();
  await dropDatabase(o.infra.adminDatabaseUrl, o.dbName);
  const { createRedis } = await import('../src/platform/redis');
  const redis = createRedis(o.infra.redisUrl, 'bench-cleanup');
  const keys = await redis.keys(`${o.queuePrefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await o.infra.stop();
}

/**
 * The bench child's two servers (the app and its baseline) on free loopback ports; they close,
 * with the services, when the parent sends SIGTERM or goes away.
 */
export async function listenUntilParentLeaves(
  servers: { app: import('node:http').Server; bare: import('node:http').Server },
  services: { close(): Promise<void> },
): Promise<{ app: number; bare: number }> {
  const listen = (s: import('node:http').Server) =>
    new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as import('node:net').AddressInfo).port)));
  const ports = { app: await listen(servers.app), bare: await listen(servers.bare) };
  const stop = async () => {
    for (const s of [servers.app, servers.bare]) s.closeAllConnections();
    await Promise.all([servers.app, servers.bare].map((s) => new Promise((r) => s.close(r))));
    await services.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('disconnect', () => void stop());
  return ports;
}

/**
 * The environment a bench's app runs with (its child's, or its in-process loadConfig's):
 * the provisioned servers, the run's queue prefix, quiet logs unless BENCH_LOG_LEVEL, no rate limit.
 */
export function benchEnv(infra: { databaseUrl: string; redisUrl: string }, queuePrefix: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: infra.databaseUrl,
    REDIS_URL: infra.redisUrl,
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_DISABLED: 'true',
    DB_POOL_MAX: '20',
  };
}

/**
 * The end of a bench run whose app and worker live in the bench's own process: closes the worker
 * and the server, drops the run's Redis keys, closes the services, then `more` (e.g. a fake
 * provider), the setup database handle, the throw-away database and the provisioned servers.
 */
export async function cleanUpInProcessRun(o: {
  worker: { close(): Promise<unknown> } | null;
  server: import('node:http').Server | null;
  services: { redis: { keys(p: string): Promise<string[]>; del(...k: string[]): Promise<unknown> }; close(): Promise<void> } | null;
  queuePrefix: string;
  more?: () => Promise<void>;
  setupDb: { destroy(): Promise<void> };
  infra: { adminDatabaseUrl: string; stop(): Promise<void> };
  dbName: string;
}) {
  await o.worker?.close().catch(() => {});
  const { server, services } = o;
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  if (services) {
    const keys = await services.redis.keys(`${o.queuePrefix}*`).catch(() => [] as string[]);
    if (keys.length) await services.redis.del(...keys).catch(() => {});
    await services.close();
  }
  await o.more?.();
  await o.setupDb.destroy();
  await dropDatabase(o.infra.adminDatabaseUrl, o.dbName);
  await o.infra.stop();
}
