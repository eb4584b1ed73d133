import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/ports';
import { restartDelayMs } from '../../scripts/provision';

/**
 * `npm start` supervises its processes (scripts/stack.ts): the real start script on a database
 * and Redis of this test run (DATABASE_URL / REDIS_URL, so no embedded servers of its own), on free
 * ports. kill -9 of the worker: the stack says so in Portuguese and restarts it, the web keeps
 * answering throughout; Ctrl-C (SIGINT) then stops web and worker first, then the services.
 */
jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
let stack: ChildProcess;
let out = '';
let webPort: number;
let dbName: string;
let exited: Promise<number | null>;
const portsFile = path.join(os.tmpdir(), `cv-ports-${process.pid}-${randomBytes(3).toString('hex')}.json`);
const prefix = `cvsup${randomBytes(3).toString('hex')}`;

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
const health = () =>
  fetch(`http://127.0.0.1:${webPort}/api/health`).then(
    (r) => r.status,
    () => 0,
  );
const pidsOf = (name: string) => [...out.matchAll(new RegExp(`${name} iniciado \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));

beforeAll(async () => {
  dbName = `cv_t_${process.env.TEST_RUN_ID ?? process.pid}_sup${randomBytes(3).toString('hex')}`;
  await admin(`CREATE DATABASE "${dbName}" TEMPLATE "${process.env.TEST_TEMPLATE_DB}"`);
  const db = new URL(process.env.TEST_ADMIN_DATABASE_URL as string);
  db.pathname = `/${dbName}`;
  webPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: db.toString(),
    REDIS_URL: process.env.REDIS_URL,
    QUEUE_PREFIX: prefix,
    PORT: String(webPort),
    WORKER_METRICS_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${webPort}`,
    LOG_LEVEL: 'warn',
    SKIP_WEB_BUILD: '1',
    COTAVERDE_PORTS_FILE: portsFile,
    BACKUP_DIR: path.join(os.tmpdir(), `cv-sup-backups-${process.pid}`),
  };
  stack = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'stack.ts'), 'start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stack.stdout!.on('data', (d) => (out += String(d)));
  stack.stderr!.on('data', (d) => (out += String(d)));
  exited = new Promise((resolve) => stack.once('exit', (code) => resolve(code)));
  await eventually(async () => out.includes('Cota Verde está no ar'), 'the stack up', 240_000, 200);
});

afterAll(async () => {
  if (stack && stack.exitCode === null) {
    stack.kill('SIGINT');
    await exited;
  }
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => {});
  fs.rmSync(portsFile, { force: true });
});

test('the backoff: 1 s, 2 s, 4 s … never more than 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 20].map(restartDelayMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
});

test('"no ar" only after our own web answered; the ports it used are remembered', async () => {
  const r = await fetch(`http://127.0.0.1:${webPort}/api/health`);
  expect(r.status).toBe(200);
  expect(((await r.json()) as { instance?: string }).instance).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(fs.readFileSync(portsFile, 'utf8'))).toMatchObject({ web: webPort });
});

test('kill -9 of the worker: said in Portuguese, restarted with a new pid; the web keeps answering', async () => {
  const [first] = pidsOf('worker');
  const [webPid] = pidsOf('web');
  expect(first).toBeGreaterThan(0);
  process.kill(first, 'SIGKILL');
  let webAnswers = 0;
  let webFailures = 0;
  const second = await eventually(
    async () => {
      const s = await health();
      if (s === 200) webAnswers++;
      else webFailures++;
      const pids = pidsOf('worker');
      return pids.length >= 2 ? pids[1] : null;
    },
    'the worker restarted',
    60_000,
    100,
  );
  expect(second).not.toBe(first);
  expect(out).toContain('o processo worker caiu (sinal SIGKILL); reiniciando em 1 s (tentativa 1). O resto continua no ar.');
  // The web process was never restarted and answered all along.
  expect(pidsOf('web')).toEqual([webPid]);
  expect(webFailures).toBe(0);
  expect(webAnswers).toBeGreaterThan(0);
  // The new worker works: its heartbeat makes the stack ready again.
  await eventually(
    async () => {
      const r = (await fetch(`http://127.0.0.1:${webPort}/api/ready`).then(
        (x) => x.json(),
        () => null,
      )) as { status?: string } | null;
      return r?.status === 'ready' ? true : null;
    },
    'ready with the new worker',
    60_000,
    200,
  );
});

test('Ctrl-C: web and worker stop first, then the services; exit 0', async () => {
  stack.kill('SIGINT');
  expect(await exited).toBe(0);
  const a = out.indexOf('encerrando: web e worker primeiro');
  const b = out.indexOf('web e worker parados; agora Redis e PostgreSQL.');
  const c = out.indexOf('tudo parado');
  expect(a).toBeGreaterThan(-1);
  expect(b).toBeGreaterThan(a);
  expect(c).toBeGreaterThan(b);
  // Nothing restarted while stopping, and both children are gone.
  expect(out.slice(a)).not.toContain('reiniciando');
  for (const pid of [...pidsOf('web'), ...pidsOf('worker')]) expect(() => process.kill(pid, 0)).toThrow();
});
