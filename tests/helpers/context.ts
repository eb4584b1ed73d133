import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../../src/platform/config';
import type { Logger } from '../../src/platform/logger';
import { createServices, type Services } from '../../src/services';
import { createApp } from '../../src/http';
import type { RouteProbe } from '../../src/platform/http/routes';
import { hashPassword, sha256 } from '../../src/auth/service';
import { insertSession } from '../../src/auth/queries';
import { uniqueCpf } from './cpf';

/**
 * A real app on a real database: each test context clones the migrated
 * template (CREATE DATABASE … TEMPLATE) and uses its own Redis key prefix, so
 * test files run in parallel without seeing each other.
 */
export interface TestContext {
  services: Services;
  /** The Koa app under test (its mounted routes: platform/http/middleware.ts mountedRoutes). */
  app: ReturnType<typeof createApp>;
  url: string;
  dbName: string;
  api<T = any>(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string },
  ): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

function adminUrl() {
  const u = process.env.TEST_ADMIN_DATABASE_URL;
  if (!u) throw new Error('TEST_ADMIN_DATABASE_URL is not set: run the suite with `npm test`.');
  return u;
}

/** The test server's URL as its admin user, on database `db` (the admin connection's own by default). */
export function serverUrl(db?: string): string {
  const u = new URL(adminUrl());
  if (db) u.pathname = `/${db}`;
  return u.toString();
}

/** One statement on the test server as its admin user (CREATE/DROP DATABASE, catalogue reads). */
export async function serverQuery(sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

const adminQuery = serverQuery;

export async function createTestContext(
  opts: {
    serveWeb?: boolean;
    env?: Record<string, string>;
    logger?: (config: ReturnType<typeof loadConfig>) => Logger;
    /** Rewrites the app's database URL (e.g. to go through a tests/helpers/tcp-proxy.ts the test stops and starts). */
    databaseUrl?: (direct: URL) => URL;
    routeProbe?: RouteProbe;
    /** The services' clock (two-factor codes). */
    now?: () => number;
  } = {},
): Promise<TestContext> {
  const template = process.env.TEST_TEMPLATE_DB;
  if (!template) throw new Error('TEST_TEMPLATE_DB is not set: run the suite with `npm test`.');
  const id = randomBytes(4).toString('hex');
  // Named after the test run (the stack process), so a later run can drop leftovers of a dead one.
  const dbName = `cv_t_${process.env.TEST_RUN_ID ?? process.pid}_${id}`;
  await adminQuery(`CREATE DATABASE "${dbName}" TEMPLATE "${template}"`);
  let dbUrl = new URL(adminUrl());
  dbUrl.pathname = `/${dbName}`;
  if (opts.databaseUrl) dbUrl = opts.databaseUrl(dbUrl);
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl.toString(),
    QUEUE_PREFIX: `cvt${id}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DB_POOL_MAX: '20',
    TRUST_PROXY: 'true',
    PUBLIC_URL: 'http://cotaverde.test',
    ...opts.env,
  });
  const services = createServices({ config, logger: opts.logger?.(config), now: opts.now });
  const app = createApp(services, { serveWeb: opts.serveWeb ?? false, routeProbe: opts.routeProbe });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    services,
    app,
    url,
    dbName,
    async api(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let payload: string | undefined = o.rawBody;
      if (o.body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(o.body);
      } else if (o.rawBody !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      const res = await fetch(url + path, { method, headers, body: payload });
      const text = await res.text();
      let body: any = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: keep text */
      }
      return { status: res.status, body, text, headers: res.headers };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Remove this context's BullMQ / rate-limit keys.
      const keys = await services.redis.keys(`${config.queuePrefix}*`);
      if (keys.length) await services.redis.del(...keys);
      await services.close();
      await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    },
  };
}

/**
 * The environment of a child process (the real CLI, a worker process) that is to work on this
 * context's database, Redis and queue prefix, quietly; `extra` adds or overrides variables.
 */
export function childProcessEnv(t: TestContext, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: t.services.config.databaseUrl,
    REDIS_URL: t.services.config.redisUrl,
    QUEUE_PREFIX: t.services.config.queuePrefix,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

let seq = 0;
/** A user inserted directly (no HTTP, no rate limit) with a live session token. */
export async function createUser(t: TestContext, o: { admin?: boolean; name?: string; email?: string; password?: string } = {}) {
  seq++;
  const password = o.password ?? 'senha-segura-1';
  const email = (o.email ?? `user${seq}-${randomBytes(3).toString('hex')}@example.com`).toLowerCase();
  const [user] = await t.services
    .db('users')
    .insert({
      name: o.name ?? `Usuária Teste ${seq}`,
      email,
      phone: '41999998888',
      cpf: uniqueCpf(),
      birthdate: '1990-01-15',
      password_hash: await hashPassword(password),
      is_admin: !!o.admin,
      role: o.admin ? 'admin' : 'customer',
    })
    .returning('*');
  const token = randomBytes(32).toString('base64url');
  await insertSession(t.services.db, user.id, sha256(token), 1);
  return { user, token, email, password };
}
