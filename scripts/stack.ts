/**
 * `npm start` and `npm test` (through scripts/bootstrap.mjs):
 *   start — every port checked at once (a taken one replaced and said, remembered in
 *           .data/app/ports.json), services, migrations, demo seed (on an empty database only),
 *           server build (dist/, when stale) and web build, then the built web + worker (node
 *           dist/…, no TypeScript loader), each restarted with backoff when it dies; Ctrl-C stops
 *           web and worker first, then Redis and PostgreSQL.
 *   test  — (the whole suite: npm run lint and typecheck first), services (a separate test cluster), a migrated template database, web build,
 *           Chromium, then the whole jest suite. Extra args go to jest.
 *   test-services — what `test` prepares, held up for a jest started on its own (`npx jest <file>`,
 *           through tests/setup/global-setup.ts) until that jest ends.
 *   services — only bring up PostgreSQL + Redis and print their URLs (for benches / debugging).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { DATA_DIR, ROOT, log, planAppPorts, restartDelayMs, provisionServices, ensureChromium, pidAlive } from './provision';
import { LOCAL_STACK } from '../src/platform/local-stack';
import { isProductionEnv } from '../src/platform/config';

// One template per test run (named after this process), so concurrent runs never drop each other's.
const TEMPLATE_DB = `cv_tpl_${process.pid}`;

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of fs.readdirSync(p)) {
    if (e === 'dist' || e === 'node_modules') continue;
    max = Math.max(max, newestMtime(path.join(p, e)));
  }
  return max;
}

export async function buildWebIfStale() {
  if (process.env.SKIP_WEB_BUILD === '1') {
    log('SKIP_WEB_BUILD=1: build do site pulado.');
    return;
  }
  const index = path.join(ROOT, 'web', 'dist', 'index.html');
  // The server render of the public pages (web/dist-ssr) comes from the same build.
  const ssr = path.join(ROOT, 'web', 'dist-ssr', 'entry-server.cjs');
  const built = fs.existsSync(index) && fs.existsSync(ssr) ? fs.statSync(index).mtimeMs : 0;
  const source = Math.max(
    newestMtime(path.join(ROOT, 'web')),
    newestMtime(path.join(ROOT, 'src', 'shared')),
    newestMtime(path.join(ROOT, 'package-lock.json')),
  );
  if (built >= source) {
    log('build do site está em dia.');
    return;
  }
  log('gerando o build do site (vite build)…');
  // Always a production build (minified React, no jsxDEV or source paths), whatever NODE_ENV the
  // caller runs with (`npm start` runs the server with development by default, `npm test` with test).
  const status = await runChild(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.mts', '--logLevel', 'warn'],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  if (status !== 0) throw new Error('vite build falhou');
}

/** `npm start` runs the built files: dist/ is rebuilt first when a source is newer (scripts/build.mjs). */
async function buildServerIfStale() {
  const status = await runChild(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, env: process.env });
  if (status !== 0) throw new Error('build do servidor (esbuild) falhou');
}

async function migrateAndSeed(databaseUrl: string, redisUrl: string, seed: boolean) {
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const db = createDb(databaseUrl, 2);
  try {
    const done = await migrateLatest(db);
    log(done.length ? `migrações aplicadas: ${done.join(', ')}` : 'banco de dados em dia (nenhuma migração pendente).');
    if (seed) {
      const { seedDemo } = await import('../seeds/demo');
      const summary = await seedDemo(db);
      log(`dados de demonstração: ${summary}`);
    }
  } finally {
    await db.destroy();
  }
  void redisUrl;
}

/** A supervised child (web or worker): restarted with backoff when it dies, stopped on request. */
interface Supervised {
  name: string;
  child: ChildProcess | null;
  restarts: number;
  timer: NodeJS.Timeout | null;
}

/** A child that ran this long without dying starts its backoff over. */
const STABLE_MS = 60_000;

async function start() {
  const instance = randomUUID();
  const ownPg = !process.env.DATABASE_URL;
  const ownRedis = !process.env.REDIS_URL;
  // Every port at once, before anything starts (a taken one is replaced and said, or the start stops here).
  const ports = await planAppPorts({ need: { pg: ownPg, redis: ownRedis, web: true, metrics: true } });
  const services = await provisionServices('app', ownPg ? LOCAL_STACK.database : '', { pg: ports.pg, redis: ports.redis });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    PORT: String(ports.web),
    WORKER_METRICS_PORT: String(ports.metrics),
    COTAVERDE_INSTANCE: instance,
  };
  // Demo convenience: sandbox PIX payments approve themselves after 20 s (never in production).
  if (!isProductionEnv(env.NODE_ENV) && env.SANDBOX_AUTO_APPROVE_SECONDS === undefined) env.SANDBOX_AUTO_APPROVE_SECONDS = '20';
  // Without SMTP, development mail (e.g. reset links, which are never stored) lands as .eml files here.
  const mailDrop = !isProductionEnv(env.NODE_ENV) && !env.SMTP_URL ? (env.MAIL_DROP_DIR ??= path.join(DATA_DIR, 'app', 'mail')) : null;
  const procs: Supervised[] = [];
  let stopping = false;
  const stopChild = (p: Supervised) =>
    new Promise<void>((resolve) => {
      if (p.timer) clearTimeout(p.timer);
      const c = p.child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
      setTimeout(() => c.kill('SIGKILL'), 15_000).unref();
    });
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Keep the process alive until the last step, whatever the children's handles do.
    setInterval(() => {}, 1000);
    log('encerrando: web e worker primeiro (o worker termina os jobs em andamento)…');
    await Promise.all(procs.map(stopChild));
    log('web e worker parados; agora Redis e PostgreSQL.');
    await services.stop();
    log('tudo parado; os dados ficam em .data/ para a próxima execução.');
    process.exit(code);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void stopAll(0));
  try {
    await migrateAndSeed(services.databaseUrl, services.redisUrl, !isProductionEnv(env.NODE_ENV));
    await buildServerIfStale();
    await buildWebIfStale();
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    await stopAll(1);
    return;
  }
  const launch = (p: Supervised, file: string) => {
    // The built JavaScript (no TypeScript loader in the web and worker processes).
    const c = spawn(process.execPath, ['--enable-source-maps', path.join(ROOT, file)], { cwd: ROOT, env, stdio: 'inherit' });
    const startedAt = Date.now();
    p.child = c;
    log(`${p.name} iniciado (pid ${c.pid}).`);
    c.on('exit', (code, signal) => {
      if (stopping) return;
      // Only this process restarts; the rest of the stack keeps running (and selling).
      if (Date.now() - startedAt > STABLE_MS) p.restarts = 0;
      p.restarts += 1;
      const delay = restartDelayMs(p.restarts);
      log(
        `o processo ${p.name} caiu (${signal ? `sinal ${signal}` : `código ${code}`}); reiniciando em ${Math.round(delay / 1000)} s (tentativa ${p.restarts}). O resto continua no ar.`,
      );
      p.timer = setTimeout(() => {
        p.timer = null;
        if (!stopping) launch(p, file);
      }, delay);
    });
  };
  const web: Supervised = { name: 'web', child: null, restarts: 0, timer: null };
  const worker: Supervised = { name: 'worker', child: null, restarts: 0, timer: null };
  procs.push(web, worker);
  launch(web, 'dist/src/bin/web.js');
  launch(worker, 'dist/jobs/worker.js');
  const url = process.env.PUBLIC_URL ?? `http://localhost:${ports.web}`;
  const { DEMO_ACCOUNTS } = await import('../seeds/demo-accounts');
  // Announce only once OUR web process answers (its instance id): another program on the port must not pass for it.
  let answered: 'ours' | 'other' | null = null;
  for (let i = 0; i < 300 && !stopping; i++) {
    answered = await fetch(`http://127.0.0.1:${ports.web}/api/health`)
      .then(async (r) =>
        ((await r.json().catch(() => null)) as { instance?: string } | null)?.instance === instance
          ? ('ours' as const)
          : ('other' as const),
      )
      .catch(() => null);
    if (answered === 'ours') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (stopping) return;
  if (answered !== 'ours') {
    console.error(
      answered === 'other'
        ? `[cotaverde] Outro programa responde na porta ${ports.web}, não o site do Cota Verde. Pare esse programa ou defina PORT com uma porta livre.`
        : `[cotaverde] O site não respondeu na porta ${ports.web} em 60 s; veja as mensagens acima.`,
    );
    await stopAll(1);
    return;
  }
  console.log(
    [
      '',
      '  Cota Verde está no ar:',
      `    ${url}`,
      '',
      '  Logins de demonstração:',
      ...DEMO_ACCOUNTS.map((a) => `    ${a.label.padEnd(14)} ${a.email}  /  ${a.password}`),
      '',
      `  PIX (sandbox): aprovado sozinho em ${env.SANDBOX_AUTO_APPROVE_SECONDS ?? 0} s, ou na hora com 'npm run cli -- payments approve <id>'.`,
      ...(mailDrop
        ? [
            `  E-mails (sem SMTP_URL): gravados como arquivos .eml em ${path.relative(ROOT, mailDrop)}/ (ex.: o link de redefinição de senha).`,
          ]
        : []),
      `  Métricas do worker: http://127.0.0.1:${ports.metrics}/metrics`,
      '',
      '  Ctrl-C encerra web e worker, depois Redis e PostgreSQL (os dados ficam em .data/).',
      '  Se o web ou o worker cair, ele é reiniciado sozinho; o resto continua no ar.',
      '',
    ].join('\n'),
  );
}

async function recreateTemplate(adminUrl: string, templateUrl: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    // Leftovers of interrupted runs: databases named after a run whose process is gone.
    const old = await client.query("SELECT datname FROM pg_database WHERE datname ~ '^cv_(t|tpl)_[0-9]+'");
    for (const r of old.rows) {
      const pid = Number(/^cv_(?:t|tpl)_(\d+)/.exec(r.datname)?.[1]);
      if (!pidAlive(pid)) await client.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    }
    await client.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DB}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${TEMPLATE_DB}"`);
  } finally {
    await client.end();
  }
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const db = createDb(templateUrl, 2);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

async function dropDatabase(adminUrl: string, name: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * What a jest run needs, built the one way whether `npm test` runs the suite or a bare `npx jest`
 * asks for it (tests/setup/global-setup.ts through `stack.ts test-services`): services (the test
 * cluster), a migrated template database, the web build, Chromium. Answers the environment the
 * tests read, the file of the run's axe records, and `finish` (the template dropped, the services stopped).
 */
async function prepareTestRun(): Promise<{ env: Record<string, string>; a11yFile: string; finish(): Promise<void> }> {
  const services = await provisionServices('test', TEMPLATE_DB);
  const finish = async () => {
    await dropDatabase(services.adminDatabaseUrl, TEMPLATE_DB).catch(() => {});
    await services.stop();
  };
  try {
    await recreateTemplate(services.adminDatabaseUrl, services.databaseUrl);
    log(`banco modelo ${TEMPLATE_DB} migrado.`);
    await buildWebIfStale();
    const chromium = ensureChromium();
    if (!chromium) {
      if (process.env.CI === 'true')
        throw new Error(
          'CI: /usr/bin/chromium ausente e não foi possível instalá-lo (apt-get install chromium); os testes de navegador são obrigatórios.',
        );
      log(
        'AVISO: /usr/bin/chromium ausente e sem permissão para instalar (apt-get install chromium): os testes de navegador serão pulados.',
      );
    }
    const env = {
      NODE_ENV: 'test',
      TEST_ADMIN_DATABASE_URL: services.adminDatabaseUrl,
      TEST_TEMPLATE_DB: TEMPLATE_DB,
      TEST_RUN_ID: String(process.pid),
      REDIS_URL: services.redisUrl,
      CHROMIUM_PATH: chromium ?? '',
    };
    // The browser tests' axe records (tests/helpers/a11y.ts): one line per page state, this run's only.
    const a11yFile = path.join(ROOT, '.data', 'test', `a11y-${env.TEST_RUN_ID}.jsonl`);
    fs.rmSync(a11yFile, { force: true });
    return { env, a11yFile, finish };
  } catch (e) {
    await finish();
    throw e;
  }
}

/**
 * The whole suite starts with the static checks: ESLint and Prettier (`npm run lint`) and both
 * TypeScript projects (`npm run typecheck`, which also holds the job map's type-level test). A
 * failure is printed and fails the run, but the tests still run so one run shows everything.
 */
async function staticChecks(): Promise<number> {
  let failed = 0;
  for (const script of ['lint', 'typecheck']) {
    log(`npm run ${script}…`);
    const status = await runChild('npm', ['run', '--silent', script], { cwd: ROOT, env: process.env });
    if (status !== 0) {
      log(`FALHOU: npm run ${script} (veja acima).`);
      failed = 1;
    }
  }
  return failed;
}

async function test(jestArgs: string[]) {
  // Only the whole suite runs the static checks: a run of a few files is for quick iteration.
  const staticFailed = jestArgs.length === 0 ? await staticChecks() : 0;
  const run = await prepareTestRun();
  let code = 1;
  try {
    const resultsFile = path.join(ROOT, '.data', 'test', 'jest-results.json');
    fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
    fs.rmSync(resultsFile, { force: true });
    const env: NodeJS.ProcessEnv = { ...process.env, ...run.env };
    delete env.DATABASE_URL;
    code = await runChild(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--json', `--outputFile=${resultsFile}`, ...jestArgs],
      { cwd: ROOT, env },
    );
    reportA11y(run.a11yFile);
    if (fs.existsSync(resultsFile)) {
      const res = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
      const skipped = res.numPendingTests + res.numTodoTests;
      // The plain closing line CI reads.
      console.log(`\njest: ${res.numPassedTests} passed, ${res.numFailedTests} failed, ${skipped} skipped`);
      if (res.numTotalTests === 0) code = code || 1;
    }
  } finally {
    await run.finish();
  }
  process.exit(code || staticFailed);
}

/**
 * `stack.ts test-services`: what `test` prepares, for a jest started on its own (`npx jest <file>`,
 * tests/setup/global-setup.ts): writes the tests' environment as one JSON line on file descriptor 3,
 * keeps the services up until its stdin closes (the global teardown, or jest gone), then finishes.
 */
async function testServices() {
  const run = await prepareTestRun();
  fs.writeSync(3, `${JSON.stringify(run.env)}\n`);
  fs.closeSync(3);
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, resolve);
    process.stdin.resume();
  });
  reportA11y(run.a11yFile);
  await run.finish();
  process.exit(0);
}

/**
 * Prints the axe totals of the run's browser tests and writes them to .data/test/a11y-summary.json
 * (states checked, violated rules and elements per impact, page states per rule). Nothing when no
 * browser test ran.
 */
function reportA11y(file: string) {
  if (!fs.existsSync(file)) return;
  const impacts = ['critical', 'serious', 'moderate', 'minor'] as const;
  const zero = () => ({ critical: 0, serious: 0, moderate: 0, minor: 0 });
  const rules = zero();
  const nodes = zero();
  const byRule: Record<string, number> = {};
  let states = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as {
      rules: Record<string, number>;
      nodes: Record<string, number>;
      violations: Array<{ id: string; impact: string }>;
    };
    states += 1;
    for (const i of impacts) {
      rules[i] += r.rules[i] ?? 0;
      nodes[i] += r.nodes[i] ?? 0;
    }
    for (const v of r.violations) byRule[`${v.impact}:${v.id}`] = (byRule[`${v.impact}:${v.id}`] ?? 0) + 1;
  }
  const summary = { states, rules, nodes, byRule };
  fs.writeFileSync(path.join(path.dirname(file), 'a11y-summary.json'), JSON.stringify(summary, null, 2) + '\n');
  fs.rmSync(file, { force: true });
  const parts = impacts.map((i) => `${rules[i]} ${i}`).join(', ');
  console.log(`\naxe: ${states} estados de página verificados; violações (regras por estado): ${parts}`);
  const top = Object.entries(byRule).sort((a, b) => b[1] - a[1]);
  if (top.length) console.log(`axe por regra (estados): ${top.map(([k, n]) => `${k}=${n}`).join(', ')}`);
}

async function servicesOnly() {
  const ports = await planAppPorts({ need: { pg: !process.env.DATABASE_URL, redis: !process.env.REDIS_URL, web: false, metrics: false } });
  const s = await provisionServices('app', process.env.DATABASE_URL ? '' : LOCAL_STACK.database, { pg: ports.pg, redis: ports.redis });
  console.log(JSON.stringify({ DATABASE_URL: s.databaseUrl, REDIS_URL: s.redisUrl }));
  process.on('SIGINT', () => void s.stop().then(() => process.exit(0)));
  process.on('SIGTERM', () => void s.stop().then(() => process.exit(0)));
}

/**
 * Runs a child to its end WITHOUT blocking this process's event loop (never spawnSync here): the
 * embedded PostgreSQL writes its log to pipes this process reads; a blocked loop stops reading,
 * the pipe fills, and every backend then hangs writing its log line (seen as a full-suite hang).
 */
function runChild(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { ...opts, stdio: 'inherit' });
    c.once('error', reject);
    c.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const [cmd, ...rest] = process.argv.slice(2);
const main =
  cmd === 'start'
    ? start()
    : cmd === 'test'
      ? test(rest)
      : cmd === 'test-services'
        ? testServices()
        : cmd === 'services'
          ? servicesOnly()
          : Promise.reject(new Error(`uso: stack.ts start|test|test-services|services`));
main.catch((e) => {
  console.error(`[cotaverde] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
