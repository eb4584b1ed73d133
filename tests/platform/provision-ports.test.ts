import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { choosePort, pgDataDirOn, planAppPorts, redisDirOn } from '../../scripts/provision';
import { rememberedAppPorts } from '../../src/platform/local-stack';

/**
 * `npm start` / `npm test` beside other things (scripts/provision.ts): a server already on the
 * embedded PostgreSQL's or Redis's port is used only when it is this checkout's (same data
 * directory); otherwise `npm test` takes the next free port and says so, and `npm start` stops
 * with a message naming the port and the variable to set.
 */
const ROOT = path.resolve(__dirname, '../..');
const pgPort = Number(new URL(process.env.TEST_ADMIN_DATABASE_URL as string).port);
const redisPort = Number(new URL(process.env.REDIS_URL as string).port);
const ourPg = path.join(ROOT, '.data', 'test', 'postgres');
const ourRedis = path.join(ROOT, '.data', 'test', 'redis');
const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-other-clone-'));

/** Something else listening on a port (accepts and closes: neither PostgreSQL nor Redis). */
let stranger: net.Server;
let strangerPort: number;
beforeAll(async () => {
  stranger = net.createServer((s) => s.destroy());
  await new Promise<void>((r) => stranger.listen(0, '127.0.0.1', () => r()));
  strangerPort = (stranger.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => stranger.close(r));
  fs.rmSync(elsewhere, { recursive: true, force: true });
});

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

let logs: string[];
beforeEach(() => {
  logs = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (logs.push(String(chunk)), true));
});
afterEach(() => jest.restoreAllMocks());

test('the servers the test run provisioned name this checkout’s data directories', async () => {
  expect(fs.realpathSync((await pgDataDirOn(pgPort)) as string)).toBe(fs.realpathSync(ourPg));
  expect(fs.realpathSync((await redisDirOn(redisPort)) as string)).toBe(fs.realpathSync(ourRedis));
  // Neither answers on a port where something else listens.
  expect(await pgDataDirOn(strangerPort)).toBeNull();
  expect(await redisDirOn(strangerPort)).toBeNull();
});

test('this checkout’s own server on the port is reused', async () => {
  expect(await choosePort({ kind: 'PostgreSQL', profile: 'test', port: pgPort, dir: ourPg, dirOn: pgDataDirOn })).toEqual({
    port: pgPort,
    running: true,
  });
  expect(await choosePort({ kind: 'Redis', profile: 'app', port: redisPort, dir: ourRedis, dirOn: redisDirOn })).toEqual({
    port: redisPort,
    running: true,
  });
});

test('npm start: another clone’s PostgreSQL on the port stops it with the port and EMBEDDED_PG_PORT named', async () => {
  const e = await choosePort({
    kind: 'PostgreSQL',
    profile: 'app',
    port: pgPort,
    dir: path.join(elsewhere, 'postgres'),
    dirOn: pgDataDirOn,
  }).catch((x: Error) => x);
  expect(e).toBeInstanceOf(Error);
  expect((e as Error).message).toContain(`A porta ${pgPort} já está em uso por um PostgreSQL com dados em`);
  expect((e as Error).message).toContain(`EMBEDDED_PG_PORT=${pgPort + 1} npm start`);
});

test('npm start: something that is not Redis on the Redis port stops it with EMBEDDED_REDIS_PORT named', async () => {
  const e = await choosePort({ kind: 'Redis', profile: 'app', port: strangerPort, dir: ourRedis, dirOn: redisDirOn }).catch(
    (x: Error) => x,
  );
  expect((e as Error).message).toContain(`A porta ${strangerPort} já está em uso por algo que não é o Redis deste checkout`);
  expect((e as Error).message).toContain('EMBEDDED_REDIS_PORT');
});

test('npm test: a foreign server on the port → the next free port, said in the output', async () => {
  const chosen = await choosePort({ kind: 'Redis', profile: 'test', port: strangerPort, dir: ourRedis, dirOn: redisDirOn });
  expect(chosen.running).toBe(false);
  expect(chosen.port).toBeGreaterThan(strangerPort);
  expect(await listening(chosen.port)).toBe(false);
  expect(logs.join('')).toContain(
    `Redis: a porta ${strangerPort} está em uso por algo que não é o Redis deste checkout; tentando a próxima.`,
  );
  const pg = await choosePort({
    kind: 'PostgreSQL',
    profile: 'test',
    port: pgPort,
    dir: path.join(elsewhere, 'postgres'),
    dirOn: pgDataDirOn,
  });
  expect(pg.port).not.toBe(pgPort);
  expect(logs.join('')).toContain(`PostgreSQL: a porta ${pgPort} está em uso por um PostgreSQL com dados em`);
});

test('a port this checkout’s server was last seen on (its pid / port file) is tried first', async () => {
  expect(
    await choosePort({ kind: 'Redis', profile: 'test', port: strangerPort, dir: ourRedis, dirOn: redisDirOn, known: redisPort }),
  ).toEqual({ port: redisPort, running: true });
});

test('a port nothing listens on but that cannot be bound (e.g. the local end of another connection) is skipped too', async () => {
  // What this machine's busy run met: the port was the local end of another program's connection.
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const target = (server.address() as net.AddressInfo).port;
  const sock = net.connect({ port: target, host: '127.0.0.1' });
  await new Promise((r) => sock.once('connect', r));
  const taken = sock.localPort as number; // an established connection's local port: no listener, not bindable
  try {
    expect(await listening(taken)).toBe(false);
    const chosen = await choosePort({ kind: 'Redis', profile: 'test', port: taken, dir: ourRedis, dirOn: redisDirOn });
    expect(chosen.port).toBeGreaterThan(taken);
    expect(logs.join('')).toContain(`Redis: a porta ${taken} está ocupada (não é possível escutar nela); tentando a próxima.`);
    const e = await choosePort({ kind: 'PostgreSQL', profile: 'app', port: taken, dir: ourPg, dirOn: pgDataDirOn }).catch((x: Error) => x);
    expect((e as Error).message).toContain(`A porta ${taken} está ocupada`);
    expect((e as Error).message).toContain('EMBEDDED_PG_PORT');
  } finally {
    sock.destroy();
    await new Promise((r) => server.close(r));
  }
});

describe('npm start: every port at once (planAppPorts)', () => {
  const file = path.join(elsewhere, 'ports.json');
  const dirs = { pg: path.join(elsewhere, 'postgres'), redis: path.join(elsewhere, 'redis') };
  const strangers: net.Server[] = [];
  /** Something else listening on `port` (or already held by another program: either way taken). */
  async function occupy(port: number) {
    const s = net.createServer((c) => c.destroy());
    await new Promise<void>((resolve) => {
      s.once('error', () => resolve());
      s.listen(port, '127.0.0.1', () => resolve());
    });
    strangers.push(s);
  }
  afterEach(async () => {
    for (const s of strangers.splice(0)) await new Promise((r) => s.close(() => r(null)));
    fs.rmSync(file, { force: true });
  });

  test('taken ports are replaced by free ones, said in one Portuguese line, and remembered for the next start and the CLI', async () => {
    const web = await freeLocalPort();
    const metrics = await freeLocalPort();
    await occupy(web);
    fs.writeFileSync(file, JSON.stringify({ web, metrics, redis: strangerPort }));
    const ports = await planAppPorts({ env: {}, file, dirs, need: { pg: false } });
    expect(ports.web).not.toBe(web);
    expect(ports.redis).not.toBe(strangerPort);
    expect(ports.metrics).toBe(metrics);
    expect(await listening(ports.web)).toBe(false);
    const said = logs.join('');
    expect(said).toContain(
      `porta(s) ocupada(s) por outros programas; usando outras: Redis: ${strangerPort} → ${ports.redis} (a ${strangerPort} está em uso por outro programa); site (web): ${web} → ${ports.web} (a ${web} está em uso por outro programa).`,
    );
    expect(said).toContain('o próximo npm start e a CLI deste checkout usam as mesmas');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(ports);
    expect(rememberedAppPorts(file)).toEqual(ports);
  });

  test("npm test's Redis and PostgreSQL ports are never offered", async () => {
    await occupy(6390);
    fs.writeFileSync(file, JSON.stringify({ redis: 6390 }));
    const ports = await planAppPorts({ env: {}, file, dirs, need: { pg: false, web: false, metrics: false } });
    expect(ports.redis).toBeGreaterThan(6390);
    expect(ports.redis >= 6391 && ports.redis < 6401).toBe(false);
  });

  test('ports set in the environment are not replaced: every conflict is reported at once, in Portuguese', async () => {
    const web = await freeLocalPort();
    await occupy(web);
    const e = await planAppPorts({
      env: { PORT: String(web), EMBEDDED_REDIS_PORT: String(strangerPort) },
      file,
      dirs,
      need: { pg: false },
    }).catch((x: Error) => x);
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toBe(
      `Porta(s) já em uso: ${strangerPort} (Redis, definida em EMBEDDED_REDIS_PORT; em uso por outro programa); ${web} (site (web), definida em PORT; em uso por outro programa). Escolha porta(s) livre(s) ou remova a variável para o npm start escolher sozinho.`,
    );
    expect(fs.existsSync(file)).toBe(false);
    await expect(planAppPorts({ env: { PORT: 'abc' }, file, dirs })).rejects.toThrow('PORT=abc não é uma porta válida (1–65535).');
  });

  test("this checkout's own PostgreSQL on the remembered port is kept", async () => {
    fs.writeFileSync(file, JSON.stringify({ pg: pgPort }));
    const ports = await planAppPorts({
      env: {},
      file,
      dirs: { pg: ourPg, redis: ourRedis },
      need: { redis: false, web: false, metrics: false },
    });
    expect(ports.pg).toBe(pgPort);
    expect(logs.join('')).not.toContain('ocupada');
  });
});

function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

test('the web process on a port another program holds: a Portuguese line, exit 1, no stack trace', async () => {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'bin', 'web.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: process.env.TEST_ADMIN_DATABASE_URL,
      PORT: String(strangerPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://cotaverde.test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += String(d)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  expect(code).toBe(1);
  expect(err).toContain(
    `A porta ${strangerPort} já está em uso por outro programa: o site não pode escutar nela. Pare esse programa ou defina PORT com uma porta livre.`,
  );
  expect(err).not.toMatch(/EADDRINUSE|\n\s+at .+:\d+:\d+/);
}, 60_000);
