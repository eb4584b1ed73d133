/**
 * Board reads vs bare Koa, and reservations under contention, in one run:
 *
 *   node --import tsx bench/boards.ts            (SECONDS=10 CONNECTIONS=100 by default)
 *   BENCH_ONLY=reads|reservations …              (one phase only; docs not written)
 *   BENCH_CPU_PROF=/tmp/prof …                   (V8 CPU profile of the server process)
 *
 * 1. Provisions PostgreSQL + Redis like `npm test` does (scripts/provision.ts,
 *    test profile), creates a throw-away database, migrates and seeds the demo.
 * 2. Starts, in a child process, the real app (createServices + createApp,
 *    LOG_LEVEL silent, serveWeb false, RATE_LIMIT_DISABLED) and a bare Koa app
 *    answering a static JSON object shaped and sized like a board. The load
 *    generator (autocannon) runs here, in the parent, so it does not share an
 *    event loop with the servers (2 cores: one for the servers, one for it).
 * 3. Same autocannon settings against: the bare endpoint, GET
 *    /api/draws/{id}/numbers, then POST /api/reservations by many users on a few
 *    numbers (holds are released every 250 ms so the fight goes on).
 * 4. Prints a markdown table and writes it into docs/BENCHMARKS.md, section
 *    "Board reads vs bare Koa". Stops every server and exits.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { benchEnv, cleanUpRun, listenUntilParentLeaves, machineLine, writeSection } from './lib';
import path from 'node:path';
import autocannon from 'autocannon';

const ROOT = path.resolve(__dirname, '..');
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 100);
const BENCH_USERS = 200;
const CONTESTED = 10;
const TARGET = 0.7;

interface Ports {
  app: number;
  bare: number;
}

// ---------------------------------------------------------------- child: servers
async function serve() {
  const Koa = (await import('koa')).default;
  const { createServices } = await import('../src/services');
  const { createApp } = await import('../src/http');
  const services = createServices();
  const app = createApp(services, { serveWeb: false });
  const appServer = http.createServer(app.callback());

  // The bare app: same shape and size as a 100-number board, no middleware.
  const names = ['ABC', 'MS', 'JPS', null];
  const staticBoard = {
    draw_id: 1,
    status: 'open',
    total_numbers: 100,
    numbers: Array.from({ length: 100 }, (_, n) => {
      const initials = names[n % 4];
      return { n, status: initials ? 'sold' : n % 7 === 0 ? 'reserved' : 'available', initials };
    }),
  };
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.body = staticBoard;
  });
  const bareServer = http.createServer(bare.callback());

  const ports: Ports = await listenUntilParentLeaves({ app: appServer, bare: bareServer }, services);
  process.send?.({ ready: ports });
}

// ---------------------------------------------------------------- parent: load
interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
  codes: Record<string, number>;
}

function toRow(name: string, r: autocannon.Result): Row {
  const codes: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) codes[code] = v.count ?? 0;
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    total: r.requests.total,
    codes,
  };
}

/** Two half-length runs as one row: mean requests/s, worst p50/p99, summed counts. */
function combineRows(name: string, runs: autocannon.Result[]): Row {
  const rows = runs.map((r) => toRow(name, r));
  const codes: Record<string, number> = {};
  for (const r of rows) for (const [c, n] of Object.entries(r.codes)) codes[c] = (codes[c] ?? 0) + n;
  return {
    name,
    rps: rows.reduce((a, r) => a + r.rps, 0) / rows.length,
    p50: Math.max(...rows.map((r) => r.p50)),
    p99: Math.max(...rows.map((r) => r.p99)),
    errors: rows.reduce((a, r) => a + r.errors, 0),
    non2xx: rows.reduce((a, r) => a + r.non2xx, 0),
    total: rows.reduce((a, r) => a + r.total, 0),
    codes,
  };
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ connections: CONNECTIONS, duration: SECONDS, pipelining: 1, ...opts });
}

async function main() {
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const { seedDemo } = await import('../seeds/demo');
  const { insertDrawWithNumbers } = await import('../src/draws/queries');
  const { sha256 } = await import('../src/auth/service');

  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvbench${process.pid}`;
  const db = createDb(infra.databaseUrl, 4);
  let child: ChildProcess | null = null;
  let releaser: NodeJS.Timeout | null = null;
  try {
    await migrateLatest(db);
    process.env.NODE_ENV = 'test';
    await seedDemo(db);

    // A board with sold (initials), reserved and free numbers, like a live one.
    const main = await db('app_config').where({ key: 'main_infoproduct_id' }).first();
    const boardDraw = await db('draws').where({ infoproduct_id: main.value, status: 'open' }).first();
    const users: Array<{ id: number; token: string }> = [];
    for (let i = 0; i < BENCH_USERS; i++) {
      const [u] = await db('users')
        .insert({ name: `Pessoa Bench ${i} Silva`, email: `bench${i}-${randomBytes(3).toString('hex')}@example.com` })
        .returning('id');
      const token = randomBytes(32).toString('base64url');
      await db('auth_tokens').insert({ user_id: u.id, token_hash: sha256(token), expires_at: db.raw(`now() + interval '1 day'`) });
      users.push({ id: u.id, token });
    }
    for (let n = 0; n < 60; n++) {
      if (n % 3 === 2) continue;
      await db('draw_numbers')
        .where({ draw_id: boardDraw.id, n })
        .update({ status: 'sold', owner_user_id: users[n % users.length].id, sold_at: db.fn.now() });
      await db('number_sales').insert({ draw_id: boardDraw.id, n, user_id: users[n % users.length].id, source: 'admin' });
    }
    // The contention board: a separate draw (generic, so holds never touch the board above).
    const fight = await db.transaction((trx) =>
      insertDrawWithNumbers(trx, {
        infoproduct_id: null,
        title: 'Bench: disputa',
        total_numbers: 100,
        prize_cents: 0,
        ticket_price_cents_override: null,
        max_per_user: 0,
      }),
    );

    child = fork(__filename, ['--serve'], {
      cwd: ROOT,
      // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server process there.
      execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
      env: benchEnv(infra, queuePrefix),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ports = await new Promise<Ports>((resolve, reject) => {
      child!.once('message', (m: { ready: Ports }) => resolve(m.ready));
      child!.once('exit', (code) => reject(new Error(`server process exited (${code})`)));
    });
    const app = `http://127.0.0.1:${ports.app}`;
    const bareUrl = `http://127.0.0.1:${ports.bare}`;

    // Same payload size? Report both.
    const boardBody = await fetch(`${app}/api/draws/${boardDraw.id}/numbers`).then((r) => r.text());
    const bareBody = await fetch(`${bareUrl}/`).then((r) => r.text());
    console.log(`board JSON ${boardBody.length} bytes, bare JSON ${bareBody.length} bytes`);

    // Warm-up (JIT, connection pools, board cache), not measured.
    await run({ url: `${bareUrl}/`, duration: 2 });
    await run({ url: `${app}/api/draws/${boardDraw.id}/numbers`, duration: 2 });

    const only = process.env.BENCH_ONLY;
    // Alternate bare, board, bare, board (half the time each): a noisy moment of the shared
    // 2-core machine then weighs on both sides instead of on whichever ran at that moment.
    const half = { duration: only === 'reservations' ? 1 : SECONDS / 2 };
    const bareRuns: autocannon.Result[] = [];
    const boardRuns: autocannon.Result[] = [];
    for (let round = 1; round <= 2; round++) {
      console.log(`round ${round}: bare Koa, then board (${CONNECTIONS} connections, ${half.duration} s each)…`);
      bareRuns.push(await run({ url: `${bareUrl}/`, ...half }));
      boardRuns.push(await run({ url: `${app}/api/draws/${boardDraw.id}/numbers`, ...half }));
    }
    const bare = combineRows('Bare Koa, static JSON (`GET /`)', bareRuns);
    const board = combineRows('Board (`GET /api/draws/{id}/numbers`)', boardRuns);

    if (only === 'reads') {
      console.log(
        `\nbare ${Math.round(bare.rps)} req/s (p99 ${bare.p99} ms), board ${Math.round(board.rps)} req/s (p99 ${board.p99} ms): ${((board.rps / bare.rps) * 100).toFixed(1)}% (docs not written)`,
      );
      return;
    }

    // Reservations under contention: random user, random 1-3 of the same 10 numbers.
    // Every 250 ms all holds are made due and released by the app's own sweep
    // (what the worker does in production), concurrently with the load.
    const { loadConfig } = await import('../src/platform/config');
    const { createServices } = await import('../src/services');
    const sweeper = createServices({
      config: loadConfig({
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: infra.databaseUrl,
        REDIS_URL: infra.redisUrl,
        QUEUE_PREFIX: queuePrefix,
        LOG_LEVEL: 'silent',
        DB_POOL_MAX: '2',
      }),
    });
    let sweepErrors = 0;
    let swept = 0;
    let sweeping = false;
    releaser = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      void db('reservations')
        .where({ draw_id: fight.id, status: 'active' })
        .update({ expires_at: db.raw(`now() - interval '1 second'`) })
        .then(() => sweeper.reservations.sweep())
        .then((n) => (swept += n))
        .catch(() => sweepErrors++)
        .finally(() => (sweeping = false));
    }, 250);
    let seed = 1;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    console.log(`reservations: ${CONNECTIONS} connections, ${SECONDS} s, ${BENCH_USERS} users on ${CONTESTED} numbers…`);
    const res = toRow(
      'Reservations under contention (`POST /api/reservations`)',
      await run({
        url: app,
        requests: [
          {
            method: 'POST',
            path: '/api/reservations',
            setupRequest: (req) => {
              const u = users[Math.floor(rnd() * users.length)];
              const pool = Array.from({ length: CONTESTED }, (_, i) => i);
              const numbers = Array.from(
                { length: 1 + Math.floor(rnd() * 3) },
                () => pool.splice(Math.floor(rnd() * pool.length), 1)[0],
              ).sort((a, b) => a - b);
              return {
                ...req,
                headers: { 'content-type': 'application/json', authorization: `Bearer ${u.token}` },
                body: JSON.stringify({ draw_id: fight.id, numbers }),
              };
            },
          },
        ],
      }),
    );
    clearInterval(releaser);
    releaser = null;
    while (sweeping) await new Promise((r) => setTimeout(r, 50));
    await sweeper.close();

    // ---------------------------------------------------------------- report
    const ratio = board.rps / bare.rps;
    const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
    const table = [
      '| Endpoint | Requests/s (mean) | p50 (ms) | p99 (ms) | Errors | Non-2xx | Responses |',
      '|---|---:|---:|---:|---:|---:|---|',
      ...[bare, board, res].map(
        (r) =>
          `| ${r.name} | ${Math.round(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors} | ${r.non2xx} | ${Object.entries(r.codes)
            .map(([c, n]) => `${c}: ${n}`)
            .join(', ')} |`,
      ),
    ].join('\n');
    const created = res.codes['201'] ?? 0;
    const conflicts = res.codes['409'] ?? 0;
    const verdict = ratio >= TARGET ? 'meets' : 'misses';
    const summary = `Board/bare throughput: **${(ratio * 100).toFixed(1)}%** (target ≥ ${TARGET * 100}%: ${verdict} it).`;
    const contention = `Reservations: ${created} holds granted (201), ${conflicts} refused on conflicts (409), ${
      Object.entries(res.codes)
        .filter(([c]) => c !== '201' && c !== '409')
        .map(([c, n]) => `${n} × ${c}`)
        .join(', ') || 'nothing else'
    }; ${swept} holds released by the sweep${sweepErrors ? ` (${sweepErrors} sweep runs failed)` : ''}.`;
    console.log(`\n${table}\n\n${summary}\n${contention}\n`);

    const section = [
      '## Board reads vs bare Koa',
      '',
      'Command (from the repository root; provisions its own PostgreSQL and Redis like `npm test`):',
      '',
      '```sh',
      'node --import tsx bench/boards.ts',
      '```',
      '',
      `- Date: ${new Date().toISOString()}`,
      machineLine(loadAtStart),
      `- Load: autocannon, ${CONNECTIONS} connections, ${SECONDS} s per endpoint as two alternating ${SECONDS / 2} s runs (bare, board, bare, board; mean req/s, worst p50/p99), no pipelining, after a 2 s warm-up; the servers run in a child process, autocannon in the parent.`,
      `- Bodies: board ${boardBody.length} bytes (100 numbers, 40 sold with initials), bare ${bareBody.length} bytes (a static object of the same shape).`,
      `- The app runs with LOG_LEVEL=silent, serveWeb=false and RATE_LIMIT_DISABLED=true, against the embedded PostgreSQL of the test profile (fsync off).`,
      '',
      table,
      '',
      summary,
      '',
      `${contention} ${BENCH_USERS} users pick 1-3 of the same ${CONTESTED} numbers of one draw; every 250 ms the bench makes every hold due and the app's own \`reservations.sweep()\` releases them (as the worker does), concurrently with the load. A 409 is the expected answer for a lost race.`,
      '',
    ].join('\n');
    if (only) {
      console.log(`BENCH_ONLY=${only}: docs not written.`);
      return;
    }
    writeSection(path.join(ROOT, 'docs', 'BENCHMARKS.md'), section);
    console.log('docs/BENCHMARKS.md updated.');
  } finally {
    if (releaser) clearInterval(releaser);
    await cleanUpRun({ child, db, infra, dbName, queuePrefix });
  }
}

if (process.argv.includes('--serve')) {
  serve().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
