/**
 * Live boards under load: many open event streams on one web process.
 *
 *   node --import tsx bench/live.ts        (STREAMS=5000 SALES=5 IDLE_SECONDS=30 by default)
 *
 * 1. Provisions PostgreSQL + Redis like `npm test` does, creates a throw-away database, migrates,
 *    and creates one 100-number draw, one buyer with vouchers and a session token.
 * 2. Starts the real app (createServices + createApp) in a child process (LIVE_MAX_STREAMS and
 *    LIVE_MAX_STREAMS_PER_CLIENT above STREAMS, default heartbeat 15 s); the streams' clients run here, in the parent, so they do not
 *    share the server's event loop.
 * 3. Memory: the child's RSS and V8 heap (after a full GC) before and after STREAMS streams of the
 *    draw are open (each has received its `board` event); the difference per stream.
 * 4. CPU while idle: the child's CPU time over IDLE_SECONDS with every stream open and nothing
 *    happening but heartbeats.
 * 5. Fan-out: SALES sales through the API (POST /api/reservations then /api/vouchers/consume, one
 *    number each); for each, the time from sending the consume request to each stream receiving
 *    the `numbers` event that shows the number sold. p50 / p99 / max over every (sale, stream).
 * 6. Prints and writes the section "Live boards: open streams on one web process" of
 *    docs/BENCHMARKS.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { benchEnv, BENCHMARKS_FILE, cleanUpRun, machineLine, writeSection } from './lib';

const ROOT = path.resolve(__dirname, '..');
const STREAMS = Number(process.env.STREAMS ?? 5000);
const SALES = Number(process.env.SALES ?? 5);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const OPEN_BATCH = 250;

interface Usage {
  rss: number;
  heapUsed: number;
  cpuUser: number;
  cpuSystem: number;
  streams: number;
}

// ---------------------------------------------------------------- child: the web process
async function serve() {
  const { createServices } = await import('../src/services');
  const { createApp } = await import('../src/http');
  const services = createServices();
  const app = createApp(services, { serveWeb: false });
  const server = http.createServer(app.callback());
  server.listen(0, '127.0.0.1', () => process.send?.({ ready: (server.address() as import('node:net').AddressInfo).port }));
  process.on('message', (m: { usage?: boolean }) => {
    if (!m.usage) return;
    (globalThis as { gc?: () => void }).gc?.();
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    process.send?.({
      usage: {
        rss: mem.rss,
        heapUsed: mem.heapUsed,
        cpuUser: cpu.user,
        cpuSystem: cpu.system,
        streams: services.live.openStreams,
      } satisfies Usage,
    });
  });
  const stop = () => {
    services.live.closeAll();
    server.closeAllConnections();
    server.close(() => void services.close().then(() => process.exit(0)));
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}

// ---------------------------------------------------------------- parent: the clients
interface Client {
  req: http.ClientRequest;
  /** Per sale: when this stream saw the number sold. */
  seen: Map<number, number>;
  boarded: boolean;
}

function openStream(port: number, drawId: number, watch: Set<number>): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client: Client = { req: null as unknown as http.ClientRequest, seen: new Map(), boarded: false };
    const req = http.get(
      { host: '127.0.0.1', port, path: `/api/draws/${drawId}/events`, agent: false, headers: { accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`stream answered ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          const now = performance.now();
          buf += chunk;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (block.includes('event: board')) {
              if (!client.boarded) {
                client.boarded = true;
                resolve(client);
              }
            } else if (block.includes('event: numbers')) {
              const data = JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { numbers: Array<{ n: number; status: string }> };
              for (const c of data.numbers) if (c.status === 'sold' && watch.has(c.n) && !client.seen.has(c.n)) client.seen.set(c.n, now);
            }
          }
        });
      },
    );
    req.on('error', reject);
    client.req = req;
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mib = (b: number) => (b / 2 ** 20).toFixed(1);

async function main() {
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const { insertDrawWithNumbers } = await import('../src/draws/queries');
  const { sha256 } = await import('../src/auth/service');

  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_live_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvbenchlive${process.pid}`;
  const db = createDb(infra.databaseUrl, 4);
  let child: ChildProcess | null = null;
  const clients: Client[] = [];
  try {
    await migrateLatest(db);
    const [product] = await db('infoproducts')
      .insert({
        sku: 'BENCH-LIVE',
        title: 'E-book do bench',
        subtitle: '',
        description: '',
        cover_url: 'capa.svg',
        file_url: 'ebooks/bench.pdf',
        price_cents: 500,
        default_prize_cents: 0,
        default_total_numbers: 100,
        active: true,
      })
      .returning('id');
    const draw = await db.transaction((trx) =>
      insertDrawWithNumbers(trx, {
        infoproduct_id: product.id,
        title: 'Bench: ao vivo',
        total_numbers: 100,
        prize_cents: 0,
        ticket_price_cents_override: null,
        max_per_user: 0,
      }),
    );
    const [buyer] = await db('users')
      .insert({ name: 'Pessoa Bench Ao Vivo', email: `live-${randomBytes(3).toString('hex')}@example.com` })
      .returning('id');
    const token = randomBytes(32).toString('base64url');
    await db('auth_tokens').insert({ user_id: buyer.id, token_hash: sha256(token), expires_at: db.raw(`now() + interval '1 day'`) });

    child = fork(__filename, ['--serve'], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx', '--expose-gc'],
      // Every stream comes from this one address: the per-client cap is lifted like the process's.
      env: { ...benchEnv(infra, queuePrefix), LIVE_MAX_STREAMS: String(STREAMS + 100), LIVE_MAX_STREAMS_PER_CLIENT: String(STREAMS + 100) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child!.once('message', (m: { ready: number }) => resolve(m.ready));
      child!.once('exit', (code) => reject(new Error(`server process exited (${code})`)));
    });
    const base = `http://127.0.0.1:${port}`;
    const usage = () =>
      new Promise<Usage>((resolve) => {
        const on = (m: { usage?: Usage }) => {
          if (!m.usage) return;
          child!.off('message', on);
          resolve(m.usage);
        };
        child!.on('message', on);
        child!.send({ usage: true });
      });
    const api = async (method: string, p: string, body?: unknown) => {
      const r = await fetch(base + p, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${text}`);
      return JSON.parse(text) as { id: number };
    };
    // Vouchers for the sales, through the service (as the CLI grants them).
    const { loadConfig } = await import('../src/platform/config');
    const { createServices } = await import('../src/services');
    const admin = createServices({ config: loadConfig({ ...benchEnv(infra, queuePrefix), DB_POOL_MAX: '2' }) as never });
    await admin.payments.grantVouchers(
      { user: String(buyer.id), product: String(product.id), quantity: String(SALES + 2) },
      { via: 'cli' },
    );
    await admin.close();

    // Warm-up: one stream, one sale (JIT, pools, the draw's first snapshot), not measured.
    const watch = new Set<number>();
    const warm = await openStream(port, draw.id, watch);
    const wHold = await api('POST', '/api/reservations', { draw_id: draw.id, numbers: [99] });
    await api('POST', '/api/vouchers/consume', { reservationId: wHold.id, numbers: [99] });
    warm.req.destroy();

    const before = await usage();
    console.log(`opening ${STREAMS} streams (batches of ${OPEN_BATCH})…`);
    const openStarted = performance.now();
    for (let i = 0; i < STREAMS; i += OPEN_BATCH) {
      const batch = await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, STREAMS - i) }, () => openStream(port, draw.id, watch)));
      clients.push(...batch);
    }
    const openSeconds = (performance.now() - openStarted) / 1000;
    const open = await usage();
    if (open.streams !== STREAMS) throw new Error(`server counts ${open.streams} streams, expected ${STREAMS}`);
    const perStreamRss = (open.rss - before.rss) / STREAMS;
    const perStreamHeap = (open.heapUsed - before.heapUsed) / STREAMS;
    console.log(
      `${STREAMS} streams open in ${openSeconds.toFixed(1)} s; RSS ${mib(before.rss)} → ${mib(open.rss)} MiB (${(perStreamRss / 1024).toFixed(1)} KiB/stream), heap ${mib(before.heapUsed)} → ${mib(open.heapUsed)} MiB (${(perStreamHeap / 1024).toFixed(1)} KiB/stream)`,
    );

    console.log(`idle for ${IDLE_SECONDS} s…`);
    const idleFrom = await usage();
    const idleStarted = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idleTo = await usage();
    const idleMs = performance.now() - idleStarted;
    const idleCpu = ((idleTo.cpuUser - idleFrom.cpuUser + idleTo.cpuSystem - idleFrom.cpuSystem) / 1000 / idleMs) * 100;
    console.log(`idle CPU ${idleCpu.toFixed(2)} % of one core`);

    const latencies: number[] = [];
    const afterAnswer: number[] = [];
    const consumeMs: number[] = [];
    for (let s = 0; s < SALES; s++) {
      const n = 10 + s;
      watch.add(n);
      const hold = await api('POST', '/api/reservations', { draw_id: draw.id, numbers: [n] });
      const t0 = performance.now();
      await api('POST', '/api/vouchers/consume', { reservationId: hold.id, numbers: [n] });
      consumeMs.push(performance.now() - t0);
      const until = Date.now() + 30_000;
      while (clients.some((c) => !c.seen.has(n))) {
        if (Date.now() > until) throw new Error(`sale ${n}: ${clients.filter((c) => !c.seen.has(n)).length} streams never saw it`);
        await new Promise((r) => setTimeout(r, 5));
      }
      for (const c of clients) {
        latencies.push(c.seen.get(n)! - t0);
        afterAnswer.push(c.seen.get(n)! - t0 - consumeMs[s]);
      }
      const sorted = clients.map((c) => c.seen.get(n)! - t0).sort((a, b) => a - b);
      console.log(
        `sale ${s + 1}/${SALES} (number ${n}): consume answered in ${consumeMs[s].toFixed(0)} ms; reached all ${STREAMS} streams: p50 ${pct(sorted, 50).toFixed(0)} ms, p99 ${pct(sorted, 99).toFixed(0)} ms, last ${sorted[sorted.length - 1].toFixed(0)} ms`,
      );
    }
    latencies.sort((a, b) => a - b);
    afterAnswer.sort((a, b) => a - b);
    const after = await usage();

    const section = [
      '## Live boards: open streams on one web process',
      '',
      `Command: \`node --import tsx bench/live.ts\` (STREAMS=${STREAMS}, SALES=${SALES}, IDLE_SECONDS=${IDLE_SECONDS}). One web process (child), its ${STREAMS} \`GET /api/draws/{id}/events\` clients in the bench's own process on the same machine; each sale is a real \`POST /api/reservations\` + \`POST /api/vouchers/consume\` through that web process, and is recorded and pushed by the live-board path (advisory lock, Redis stream, fan-out).`,
      '',
      '| Figure | Value |',
      '|---|---:|',
      `| Streams open (server's count) | ${open.streams} (opened in ${openSeconds.toFixed(1)} s, ${OPEN_BATCH} at a time) |`,
      `| Sale → every stream: p50 / p99 / max (${latencies.length} deliveries) | ${pct(latencies, 50).toFixed(0)} / ${pct(latencies, 99).toFixed(0)} / ${latencies[latencies.length - 1].toFixed(0)} ms |`,
      `| Consume answered → every stream: p50 / p99 / max (negative: the event arrived before the answer) | ${pct(afterAnswer, 50).toFixed(0)} / ${pct(afterAnswer, 99).toFixed(0)} / ${afterAnswer[afterAnswer.length - 1].toFixed(0)} ms |`,
      `| The consume request itself: median | ${[...consumeMs].sort((a, b) => a - b)[Math.floor(consumeMs.length / 2)].toFixed(0)} ms |`,
      `| Memory per open stream: RSS / V8 heap (after GC) | ${(perStreamRss / 1024).toFixed(1)} / ${(perStreamHeap / 1024).toFixed(1)} KiB |`,
      `| Web process RSS: before / ${STREAMS} open / after the sales | ${mib(before.rss)} / ${mib(open.rss)} / ${mib(after.rss)} MiB |`,
      `| CPU while idle with ${STREAMS} streams open (heartbeats every 15 s, safety pass every 10 s) | ${idleCpu.toFixed(2)} % of one core over ${IDLE_SECONDS} s |`,
      '',
      machineLine(loadAtStart),
      "- The latency is measured from sending the consume request, so it includes the sale itself (the transaction and its invalidation), the record (one read of the board under the draw's advisory lock, one MULTI to Redis) and writing one pre-serialized frame to each socket; the clients parse on one core shared with the server.",
      '',
    ].join('\n');
    console.log(`\n${section}`);
    writeSection(BENCHMARKS_FILE, section);
    console.log('docs/BENCHMARKS.md updated.');
  } finally {
    for (const c of clients) c.req.destroy();
    await cleanUpRun({ child, db, infra, dbName, queuePrefix });
  }
}

if (process.argv.includes('--serve')) void serve();
else
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
