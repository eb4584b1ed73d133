/**
 * Public and signed-in reads vs a bare node:http server answering the same bytes, in one run:
 *
 *   node --import tsx bench/reads.ts          (SECONDS=10 CONNECTIONS=100 ROUNDS=2 by default)
 *   BENCH_ONLY=board,config …                 (some reads only; docs not written)
 *   BENCH_CPU_PROF=/tmp/prof …                (V8 CPU profile of the server process)
 *
 * 1. Provisions PostgreSQL + Redis like `npm test` does (test profile), creates a
 *    throw-away database, migrates, seeds the demo and adds products up to a home
 *    page of 12 cards (each with an open draw; the main board has sold numbers).
 * 2. Starts, in a child process, the real app (createServices + createApp,
 *    LOG_LEVEL silent, serveWeb false, RATE_LIMIT_DISABLED) and a bare node:http
 *    server that answers each read's path with the exact bytes the app answered
 *    for it (fetched once before the runs). autocannon runs here, in the parent.
 * 3. For each public read: bare, app, bare, app, … (ROUNDS pairs of SECONDS/ROUNDS
 *    runs, alternating so a noisy moment of the shared machine weighs on both
 *    sides), after a warm-up. The child counts the app's SQL queries per miss
 *    (knex 'query' events) and its own CPU time per answered request.
 *    The signed-in reads (a buyer's account, vouchers left, PIX status, payments,
 *    reservations) go with a Bearer session of a buyer who has a hold, sold numbers and
 *    payments made through the app; the bare server gets the same header and ignores it.
 * 4. Prints a markdown table and writes it into docs/BENCHMARKS.md, section
 *    "Public and signed-in reads vs bare node:http".
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { cleanUpRun, listenUntilParentLeaves, machineLine, writeSection } from './lib';

const ROOT = path.resolve(__dirname, '..');
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 100);
/** The ratio each read must reach: public reads 50% of bare, signed-in reads 25% (the payments list 15%). */
const TARGET = 0.5;
const SIGNED_IN_TARGET = 0.25;
const PAYMENTS_LIST_TARGET = 0.15;
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const HOME_CARDS = 12;

interface Ports {
  app: number;
  bare: number;
}
type ToChild = { bodies: Record<string, string> } | { countQueries: boolean } | { cpu: 'start' | 'stop' };
type FromChild = { ready: Ports } | { bodiesSet: true } | { queries: number } | { cpuMicros: number };

// ---------------------------------------------------------------- child: servers
async function serve() {
  const { createServices } = await import('../src/services');
  const { createApp } = await import('../src/http');
  const services = createServices();
  const app = createApp(services, { serveWeb: false });
  const appServer = http.createServer(app.callback());

  let queries = 0;
  let counting = false;
  services.db.on('query', () => {
    if (counting) queries++;
  });

  // The bare server: the app's exact bytes per path, nothing else.
  let bodies = new Map<string, Buffer>();
  const bareServer = http.createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });

  let cpuAt = process.cpuUsage();
  process.on('message', (m: ToChild) => {
    if ('cpu' in m) {
      if (m.cpu === 'start') cpuAt = process.cpuUsage();
      else {
        const d = process.cpuUsage(cpuAt);
        process.send?.({ cpuMicros: d.user + d.system } satisfies FromChild);
      }
    } else if ('bodies' in m) {
      bodies = new Map(Object.entries(m.bodies).map(([p, b]) => [p, Buffer.from(b)]));
      process.send?.({ bodiesSet: true } satisfies FromChild);
    } else {
      if (!m.countQueries) process.send?.({ queries } satisfies FromChild);
      counting = m.countQueries;
      queries = 0;
    }
  });

  const ports: Ports = await listenUntilParentLeaves({ app: appServer, bare: bareServer }, services);
  process.send?.({ ready: ports } satisfies FromChild);
}

// ---------------------------------------------------------------- parent: load
interface Row {
  rps: number;
  /** CPU time of the server process per answered request (µs). */
  cpuPerRequest: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Alternating half-length runs as one row: mean requests/s, worst p50/p99, summed errors. */
function combine(runs: Array<autocannon.Result & { cpuMicros: number }>): Row {
  return {
    rps: runs.reduce((a, r) => a + r.requests.average, 0) / runs.length,
    cpuPerRequest: runs.reduce((a, r) => a + r.cpuMicros, 0) / runs.reduce((a, r) => a + r.requests.total, 0),
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    errors: runs.reduce((a, r) => a + r.errors + r.timeouts, 0),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
  };
}

function run(url: string, duration: number, headers: Record<string, string> = {}): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration, pipelining: 1, headers });
}

async function main() {
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const { seedDemo } = await import('../seeds/demo');
  const { insertDrawWithNumbers } = await import('../src/draws/queries');

  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_reads_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvbenchr${process.pid}`;
  const db = createDb(infra.databaseUrl, 4);
  let child: ChildProcess | null = null;
  try {
    await migrateLatest(db);
    process.env.NODE_ENV = 'test';
    await seedDemo(db);

    // A home page of 12 cards: the 3 demo e-books plus 9 more, each with an open draw.
    const category = await db('categories').where({ slug: 'lotomania' }).first();
    const have = Number((await db('infoproducts').count<{ c: number }[]>({ c: '*' }))[0].c);
    for (let i = have; i < HOME_CARDS; i++) {
      const [p] = await db('infoproducts')
        .insert({
          sku: `EBOOK-BENCH-${i}`,
          title: `E-book de bancada ${i}`,
          subtitle: 'Subtítulo',
          description: 'Descrição do e-book.',
          cover_url: '/covers/guia-lotomania.svg',
          price_cents: 700,
          default_prize_cents: 20_000,
          default_total_numbers: 100,
          category_id: category.id,
        })
        .returning('*');
      await db.transaction((trx) =>
        insertDrawWithNumbers(trx, {
          infoproduct_id: p.id,
          title: p.title,
          total_numbers: 100,
          prize_cents: 20_000,
          ticket_price_cents_override: null,
          max_per_user: 0,
        }),
      );
    }
    // The main board looks live: 40 sold numbers (with initials) and 10 held.
    const main = await db('app_config').where({ key: 'main_infoproduct_id' }).first();
    const mainProduct = await db('infoproducts').where({ id: main.value }).first();
    const board = await db('draws').where({ infoproduct_id: main.value, status: 'open' }).first();
    const buyers: number[] = [];
    for (let i = 0; i < 20; i++) {
      const [u] = await db('users')
        .insert({ name: `Pessoa Bench ${i} Silva`, email: `bench${i}-${randomBytes(3).toString('hex')}@example.com` })
        .returning('id');
      buyers.push(u.id);
    }
    for (let n = 0; n < 60; n++) {
      if (n % 3 === 2) continue;
      const user_id = buyers[n % buyers.length];
      await db('draw_numbers').where({ draw_id: board.id, n }).update({ status: 'sold', owner_user_id: user_id, sold_at: db.fn.now() });
      await db('number_sales').insert({ draw_id: board.id, n, user_id, source: 'admin' });
    }
    const [hold] = await db('reservations')
      .insert({
        draw_id: board.id,
        user_id: buyers[0],
        numbers: db.raw('?::int[]', [[90, 91, 92, 93, 94, 95, 96, 97, 98, 99]]),
        status: 'active',
        expires_at: db.raw(`now() + interval '1 day'`),
      })
      .returning('id');
    await db('draw_numbers')
      .where({ draw_id: board.id })
      .whereBetween('n', [90, 99])
      .update({ status: 'reserved', reservation_id: hold.id });

    // A signed-in buyer (buyers[0]: the hold above, sold numbers) with a session, as a login opens.
    const { insertSession } = await import('../src/auth/queries');
    const { sha256 } = await import('../src/auth/service');
    const token = randomBytes(32).toString('base64url');
    await insertSession(db, buyers[0], sha256(token), 1);
    const auth = { authorization: `Bearer ${token}` };

    const reads: Array<{ name: string; path: string; signedIn?: boolean; target?: number }> = [
      { name: 'Home list', path: `/api/infoproducts?category=lotomania&status=open&limit=${HOME_CARDS}` },
      { name: 'Sections', path: '/api/infoproducts/sections?onlyOpen=1' },
      { name: 'Open draw', path: `/api/infoproducts/${mainProduct.sku}/open-draw` },
      { name: 'Open draw with numbers', path: `/api/infoproducts/${mainProduct.sku}/open-draw?include=numbers` },
      { name: 'Draw', path: `/api/draws/${board.id}` },
      { name: 'Board', path: `/api/draws/${board.id}/numbers` },
      { name: 'Config', path: '/api/config' },
      { name: 'Me', path: '/api/me', signedIn: true },
      { name: 'Vouchers remaining', path: `/api/vouchers/remaining?draw_id=${board.id}`, signedIn: true },
      { name: 'PIX status', path: '/api/payments/{payment}/status', signedIn: true },
      { name: 'My payments', path: '/api/payments/me', signedIn: true, target: PAYMENTS_LIST_TARGET },
      { name: 'My reservations', path: '/api/me/reservations', signedIn: true },
    ];
    const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim().toLowerCase());
    const selected = only
      ? reads.filter((r) => only.some((o) => r.name.toLowerCase().replaceAll(' ', '-') === o || r.name.toLowerCase() === o))
      : reads;
    if (!selected.length) throw new Error(`BENCH_ONLY matches no read (${reads.map((r) => r.name).join(', ')})`);

    child = fork(__filename, ['--serve'], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: infra.databaseUrl,
        REDIS_URL: infra.redisUrl,
        QUEUE_PREFIX: queuePrefix,
        LOG_LEVEL: 'silent',
        RATE_LIMIT_DISABLED: 'true',
        DB_POOL_MAX: '20',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const next = <T extends FromChild>(key: string) =>
      new Promise<T>((resolve, reject) => {
        const onMessage = (m: FromChild) => {
          if (key in m) {
            child!.off('message', onMessage);
            child!.off('exit', onExit);
            resolve(m as T);
          }
        };
        const onExit = (code: number | null) => reject(new Error(`server process exited (${code})`));
        child!.on('message', onMessage);
        child!.once('exit', onExit);
      });
    const ports = (await next<{ ready: Ports }>('ready')).ready;
    const app = `http://127.0.0.1:${ports.app}`;
    const bare = `http://127.0.0.1:${ports.bare}`;

    // The buyer's payments, made through the app as the storefront makes them (sandbox PIX, pending).
    const paymentIds: number[] = [];
    for (const p of await db('infoproducts').orderBy('id').limit(6).select('id', 'price_cents')) {
      const res = await fetch(`${app}/api/payments/infoproduct`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ infoproduct_id: p.id, quantity: 2, amount_cents_total: p.price_cents * 2 }),
      });
      if (res.status !== 201) throw new Error(`payment: ${res.status} ${await res.text()}`);
      paymentIds.push(((await res.json()) as { paymentId: number }).paymentId);
    }
    for (const r of selected) r.path = r.path.replace('{payment}', String(paymentIds[0]));
    const headersOf = (r: { signedIn?: boolean }) => (r.signedIn ? auth : {});

    // The exact bytes of each answer, and how many queries a miss costs (cache empty: first read).
    const bodies: Record<string, string> = {};
    const missQueries: Record<string, number> = {};
    for (const r of selected) {
      // Signed-in reads: the session is in the session cache (≤ 5 s, as for a browser polling), the
      // answer's ≤ 1 s entry has expired: one counted miss.
      if (r.signedIn) await fetch(app + r.path, { headers: headersOf(r) }).then((x) => x.text());
      child.send({ countQueries: true } satisfies ToChild);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // every entry has expired
      const res = await fetch(app + r.path, { headers: headersOf(r) });
      if (res.status !== 200) throw new Error(`${r.path}: ${res.status}`);
      bodies[r.path] = await res.text();
      const counted = next<{ queries: number }>('queries');
      child.send({ countQueries: false } satisfies ToChild);
      missQueries[r.path] = (await counted).queries;
    }
    const set = next('bodiesSet');
    child.send({ bodies } satisfies ToChild);
    await set;
    for (const r of selected) {
      const same = await fetch(bare + r.path).then((x) => x.text());
      if (same !== bodies[r.path]) throw new Error(`bare server does not answer the app's bytes for ${r.path}`);
    }

    const results: Array<{
      name: string;
      path: string;
      bytes: number;
      queries: number;
      target: number;
      signedIn: boolean;
      app: Row;
      bare: Row;
    }> = [];
    for (const r of selected) {
      await run(bare + r.path, 1, headersOf(r));
      await run(app + r.path, 2, headersOf(r));
      const measured = async (url: string) => {
        child!.send({ cpu: 'start' } satisfies ToChild);
        const result = await run(url, SECONDS / ROUNDS, headersOf(r));
        const cpu = next<{ cpuMicros: number }>('cpuMicros');
        child!.send({ cpu: 'stop' } satisfies ToChild);
        return { ...result, cpuMicros: (await cpu).cpuMicros };
      };
      const bareRuns: Array<autocannon.Result & { cpuMicros: number }> = [];
      const appRuns: Array<autocannon.Result & { cpuMicros: number }> = [];
      for (let round = 1; round <= ROUNDS; round++) {
        bareRuns.push(await measured(bare + r.path));
        appRuns.push(await measured(app + r.path));
      }
      const row = {
        name: r.name,
        path: r.path,
        target: r.target ?? (r.signedIn ? SIGNED_IN_TARGET : TARGET),
        signedIn: !!r.signedIn,
        bytes: Buffer.byteLength(bodies[r.path]),
        queries: missQueries[r.path],
        app: combine(appRuns),
        bare: combine(bareRuns),
      };
      console.log(
        `${r.name}: app ${Math.round(row.app.rps)} req/s, bare ${Math.round(row.bare.rps)} req/s → ${((row.app.rps / row.bare.rps) * 100).toFixed(1)}% (p99 ${row.app.p99} / ${row.bare.p99} ms; server CPU ${Math.round(row.app.cpuPerRequest)} / ${Math.round(row.bare.cpuPerRequest)} µs per request)`,
      );
      results.push(row);
    }

    // ---------------------------------------------------------------- report
    const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
    const template = (p: string) =>
      p
        .replace(`/api/draws/${board.id}`, '/api/draws/{id}')
        .replace(`/${mainProduct.sku}/`, '/{sku}/')
        .replace(`draw_id=${board.id}`, 'draw_id={id}')
        .replace(`/payments/${paymentIds[0]}/`, '/payments/{id}/');
    const table = [
      '| Read | Path | Bytes | Queries per miss | App req/s | Bare req/s | App/bare (target) | App p50 / p99 (ms) | Bare p50 / p99 (ms) | Server CPU per request, app / bare (µs) | Errors, non-2xx |',
      '|---|---|---:|---:|---:|---:|---:|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.name}${r.signedIn ? ' (signed in)' : ''} | \`${template(r.path)}\` | ${r.bytes} | ${r.queries} | ${Math.round(r.app.rps)} | ${Math.round(r.bare.rps)} | **${((r.app.rps / r.bare.rps) * 100).toFixed(1)}%** (≥ ${r.target * 100}%) | ${fmt(r.app.p50)} / ${fmt(r.app.p99)} | ${fmt(r.bare.p50)} / ${fmt(r.bare.p99)} | ${Math.round(r.app.cpuPerRequest)} / ${Math.round(r.bare.cpuPerRequest)} | ${r.app.errors + r.bare.errors}, ${r.app.non2xx + r.bare.non2xx} |`,
      ),
    ].join('\n');
    const missed = results.filter((r) => r.app.rps / r.bare.rps < r.target);
    const ratios = (rs: typeof results) => rs.map((r) => r.app.rps / r.bare.rps);
    const lowest = (rs: typeof results) => (rs.length ? `${(Math.min(...ratios(rs)) * 100).toFixed(1)}%` : 'none measured');
    const summary = `Lowest app/bare ratio: public reads **${lowest(results.filter((r) => !r.signedIn))}** (target ≥ ${TARGET * 100}%), signed-in reads **${lowest(results.filter((r) => r.signedIn))}** (target ≥ ${SIGNED_IN_TARGET * 100}%, the payments list ≥ ${PAYMENTS_LIST_TARGET * 100}%): ${missed.length ? `missed by ${missed.map((r) => r.name).join(', ')}` : 'every read met its target'}.`;
    console.log(`\n${table}\n\n${summary}\n`);
    if (only) {
      console.log('BENCH_ONLY: docs not written.');
      return;
    }
    const section = [
      '## Public and signed-in reads vs bare node:http',
      '',
      'Command (from the repository root; provisions its own PostgreSQL and Redis like `npm test`):',
      '',
      '```sh',
      'node --import tsx bench/reads.ts',
      '```',
      '',
      `- Date: ${new Date().toISOString()}`,
      machineLine(loadAtStart),
      `- Load: autocannon, ${CONNECTIONS} connections, no pipelining, all on 127.0.0.1; per read ${SECONDS} s per side as ${ROUNDS} alternating pairs of ${SECONDS / ROUNDS} s runs (bare, app, bare, app…; mean req/s, worst p50/p99), after a warm-up. The servers run in one child process, autocannon in the parent.`,
      `- App: the real app (createServices + createApp; every platform middleware: request id, helmet, CORS, body parser, bearer lookup, routers) with LOG_LEVEL=silent, serveWeb=false, RATE_LIMIT_DISABLED=true, on the embedded PostgreSQL of the test profile (fsync off). Anonymous GETs, answered from the read cache (≤ 1 s, single-flight, \`src/platform/read-cache.ts\`), so about one build per read per second; cache hits go through the public reads' fast lane (\`src/platform/http/fast-lane.ts\`) with the headers Koa sent.`,
      `- Signed-in reads: a buyer with a Bearer session (a hold of 10 numbers on the main board, sold numbers, 6 pending sandbox PIX payments of 2 e-books each made through the app before the runs), every request with that header (the bare server gets it too and ignores it). Each request runs the app's full chain: the session comes from the session cache (\`src/platform/session-cache.ts\`, kept ≤ 5 s, dropped on every web process by any session change through the cache bus), the answer from the user read cache (\`src/platform/user-read-cache.ts\`: per user and URL, ≤ 1 s, single-flight, dropped on every web process by the user's own writes and by a payment's state change). One buyer on 100 connections is that cache's best case (about one build per read per second); "Queries per miss" counts a build with the session cached.`,
      `- Bare: \`node:http\` answering each path with the exact bytes the app answered (checked before the runs), \`Content-Type\` and \`Content-Length\` only.`,
      `- Data: the demo seed plus e-books up to ${HOME_CARDS} cards with open draws; the main board has 40 sold numbers (with initials) and 10 held. "Queries per miss": SQL statements the app ran to build the answer with the cache empty (knex \`query\` events). "Server CPU per request": CPU time of the server process (user + system) during the runs divided by the requests answered, a figure less sensitive than req/s to what else runs on the machine.`,
      '',
      table,
      '',
      summary,
      '',
    ].join('\n');
    writeSection(path.join(ROOT, 'docs', 'BENCHMARKS.md'), section);
    console.log('docs/BENCHMARKS.md updated.');
  } finally {
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
