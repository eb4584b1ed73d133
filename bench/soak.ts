/**
 * Soak under faults: customers buy, pay, pick, get refunded and let holds expire while Redis is
 * stopped and restarted (empty) and the worker is killed and restarted; at the end the books
 * are checked with the real CLI (`cotaverde audit books --json`, RULES B1).
 *
 *   node --import tsx bench/soak.ts                 (SOAK_MINUTES=10, SOAK_CUSTOMERS=12)
 *
 * 1. Provisions PostgreSQL like `npm test` does (scripts/provision.ts, test profile), a
 *    throw-away database, migrated; a private redis-server (no persistence) on a free port,
 *    so that stopping it touches nobody else and a restart comes back EMPTY (a wipe).
 * 2. Starts a local fake of Mercado Pago (tests/helpers/fake-mercadopago.ts) and the real app in
 *    this process (PAYMENT_PROVIDER=mercadopago against the fake), and the real worker as a child
 *    process (tests/payments/support/worker-process.ts: jobs/worker.ts with short BullMQ locks).
 *    Holds last 1 minute (app_config reservation_ttl_minutes = 1).
 * 3. SOAK_CUSTOMERS customers loop for SOAK_MINUTES, each step one of:
 *    - e-book: buys 1-3 e-books by PIX, the fake approves and sends the signed webhook, then the
 *      customer holds that many numbers of the product's open draw and picks them with vouchers;
 *    - reservation PIX: holds 1-3 numbers, creates the PIX, the fake approves + webhook;
 *    - refund: one of the customer's approved payments is refunded (1 in 4: charged back) at the
 *      fake, which notifies the app by webhook (the refund path that exists today);
 *    - abandon: holds 1-3 numbers and leaves them to expire (worker job or sweep).
 *    Draws sell out and are succeeded (ensure-open-draw gives the current one).
 * 4. Faults, alternating every SOAK_FAULT_EVERY_S (default 75 s): Redis stopped for 20 s and
 *    restarted empty; the worker SIGKILLed and restarted 10 s later.
 * 5. At the end: customers stop, the closed draws are decided from a recorded result (so the
 *    winner checks have work), `audit books --json` runs as a child process; the figures are
 *    printed and written into the section "Soak under faults" of docs/BENCHMARKS.md.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { benchEnv, cleanUpInProcessRun, machineLine, writeSection } from './lib';
import { PrivateRedis } from '../tests/helpers/private-redis';
import { freePort } from '../tests/helpers/ports';

const ROOT = path.resolve(__dirname, '..');
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const CUSTOMERS = Number(process.env.SOAK_CUSTOMERS ?? 12);
const FAULT_EVERY_MS = Number(process.env.SOAK_FAULT_EVERY_S ?? 75) * 1000;
const SECRET = 'soak-webhook-secret-0123456789';
const SECTION_TITLE = '## Soak under faults (books at the end)';
const PRICE = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function main() {
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const { loadConfig } = await import('../src/platform/config');
  const { createServices } = await import('../src/services');
  const { createApp } = await import('../src/http');
  const { insertDrawWithNumbers } = await import('../src/draws/queries');
  const { insertSession } = await import('../src/auth/queries');
  const { sha256 } = await import('../src/auth/service');
  const { startFakeMercadoPago } = await import('../tests/helpers/fake-mercadopago');

  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_soak_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const redis = new PrivateRedis(await freePort(), { name: 'soak-redis' });
  await redis.start();
  const queuePrefix = `cvsoak${process.pid}`;
  const setupDb = createDb(infra.databaseUrl, 4);
  const fake = await startFakeMercadoPago();
  let services: ReturnType<typeof createServices> | null = null;
  let server: http.Server | null = null;
  let worker: ChildProcess | null = null;
  try {
    await migrateLatest(setupDb);
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...benchEnv({ databaseUrl: infra.databaseUrl, redisUrl: redis.url }, queuePrefix),
      PUBLIC_URL: appUrl,
      PAYMENT_PROVIDER: 'mercadopago',
      MERCADOPAGO_ACCESS_TOKEN: fake.token,
      MERCADOPAGO_WEBHOOK_SECRET: SECRET,
      MERCADOPAGO_API_URL: fake.url,
    };
    services = createServices({ config: loadConfig(env) });
    const s = services;
    server = http.createServer(createApp(s, { serveWeb: false }).callback());
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));

    // The worker: a child process that can be killed.
    let workerStarts = 0;
    const startWorkerProcess = async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/payments/support/worker-process.ts')], {
        cwd: ROOT,
        env: { ...env, WORKER_LOCK_MS: '5000', WORKER_STALLED_MS: '2000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out = (out + d).slice(-4000)));
      const t0 = Date.now();
      while (!out.includes('worker ready')) {
        if (child.exitCode !== null) throw new Error(`worker exited early (${child.exitCode}):\n${out}`);
        if (Date.now() - t0 > 90_000) throw new Error(`worker did not start:\n${out}`);
        await sleep(100);
      }
      workerStarts++;
      worker = child;
    };
    await startWorkerProcess();

    // Catalogue: one e-book at R$ 2,00 with an open 100-number draw (no per-user limit); holds of 1 minute.
    const [product] = await setupDb('infoproducts').insert({ sku: 'SOAK', title: 'E-book do soak', price_cents: PRICE }).returning('*');
    await setupDb.transaction((trx) =>
      insertDrawWithNumbers(trx, {
        infoproduct_id: product.id,
        title: 'Soak',
        total_numbers: 100,
        prize_cents: 0,
        ticket_price_cents_override: null,
        max_per_user: 0,
      }),
    );
    await setupDb('app_config')
      .insert({ key: 'reservation_ttl_minutes', value: JSON.stringify(1) })
      .onConflict('key')
      .merge();
    const customers: Array<{ id: number; token: string; approved: number[] }> = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const [u] = await setupDb('users')
        .insert({ name: `Cliente Soak ${i} Lima`, email: `soak${i}-${randomBytes(3).toString('hex')}@example.com` })
        .returning('id');
      const token = randomBytes(32).toString('base64url');
      await insertSession(setupDb, u.id, sha256(token), 1);
      customers.push({ id: u.id, token, approved: [] });
    }

    const api = async (method: string, p: string, token?: string, body?: unknown) => {
      const res = await fetch(appUrl + p, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: res.status, body: parsed };
    };

    const ops: Record<string, number> = {
      ebook_bought: 0,
      numbers_picked: 0,
      reservation_paid: 0,
      refunded: 0,
      charged_back: 0,
      hold_abandoned: 0,
      conflicts: 0,
    };
    const unexpected: Record<string, number> = {};
    const sample: string[] = [];
    const bad = (what: string, r: { status: number; body: unknown }) => {
      const k = `${what} ${r.status}`;
      unexpected[k] = (unexpected[k] ?? 0) + 1;
      if (sample.length < 10) sample.push(`${k}: ${JSON.stringify(r.body).slice(0, 200)}`);
    };

    const currentDraw = async (token: string): Promise<number | null> => {
      const r = await api('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`, token);
      if (r.status !== 200 || !r.body?.draw_id) {
        bad('ensure-open-draw', r);
        return null;
      }
      return r.body.draw_id;
    };
    /** Holds k random numbers of the current draw (a few tries past conflicts). */
    const hold = async (c: { token: string }, k: number): Promise<{ reservationId: number; numbers: number[] } | null> => {
      for (let attempt = 0; attempt < 4; attempt++) {
        const drawId = await currentDraw(c.token);
        if (!drawId) return null;
        // Picks among the numbers free right now (what the board shows); a race may still take them.
        const free: number[] = (await setupDb('draw_numbers').where({ draw_id: drawId, status: 'available' }).pluck('n')).map(Number);
        if (!free.length) {
          await sleep(200);
          continue;
        }
        const numbers = new Set<number>();
        while (numbers.size < Math.min(k, free.length)) numbers.add(free[randomInt(free.length)]);
        const r = await api('POST', '/api/reservations', c.token, { draw_id: drawId, numbers: [...numbers] });
        if (r.status === 201) return { reservationId: r.body.reservationId, numbers: [...numbers] };
        if (r.status === 409) {
          ops.conflicts++;
          continue;
        }
        bad('reservation', r);
        return null;
      }
      return null;
    };
    /** The fake moves the payment and notifies the app by a signed webhook (retried while the app answers 503). */
    const settle = async (paymentId: number, status: 'approved' | 'refunded' | 'charged_back') => {
      const row = await setupDb('payments').where({ id: paymentId }).first('provider_payment_id');
      if (!row?.provider_payment_id) return false;
      fake.setStatus(row.provider_payment_id, status);
      for (let i = 0; i < 5; i++) {
        const r = await fake.notify(appUrl, row.provider_payment_id, { secret: SECRET });
        if (r.status === 200) return true;
        bad(`webhook(${status})`, r);
        await sleep(500);
      }
      return false; // the worker's polling / reconciliation picks it up later
    };

    const deadline = Date.now() + MINUTES * 60_000;
    const step = async (c: (typeof customers)[number]) => {
      const roll = randomInt(100);
      const k = 1 + randomInt(3);
      if (roll < 35) {
        const r = await api('POST', '/api/payments/infoproduct', c.token, {
          infoproduct_id: product.id,
          quantity: k,
          amount_cents_total: PRICE * k,
        });
        if (r.status !== 201) return bad('ebook payment', r);
        if (!(await settle(r.body.paymentId, 'approved'))) return;
        ops.ebook_bought++;
        c.approved.push(r.body.paymentId);
        const h = await hold(c, k);
        if (!h) return;
        const used = await api('POST', '/api/vouchers/consume', c.token, { reservationId: h.reservationId, numbers: h.numbers });
        if (used.status === 200) ops.numbers_picked += h.numbers.length;
        else if (used.status === 409) ops.conflicts++;
        else bad('consume', used);
      } else if (roll < 65) {
        const h = await hold(c, k);
        if (!h) return;
        const pix = await api('POST', '/api/payments/pix', c.token, { reservationId: h.reservationId });
        if (pix.status !== 201) {
          if (pix.status === 409) ops.conflicts++;
          else bad('reservation pix', pix);
          return;
        }
        const p = await setupDb('payments').where({ reservation_id: h.reservationId }).orderBy('id', 'desc').first('id');
        if (p && (await settle(p.id, 'approved'))) {
          ops.reservation_paid++;
          c.approved.push(p.id);
        }
      } else if (roll < 80) {
        if (!c.approved.length) return;
        const id = c.approved.splice(randomInt(c.approved.length), 1)[0];
        const chargeback = randomInt(4) === 0;
        if (await settle(id, chargeback ? 'charged_back' : 'refunded')) ops[chargeback ? 'charged_back' : 'refunded']++;
      } else {
        if (await hold(c, k)) ops.hold_abandoned++;
      }
    };
    const customerLoop = async (c: (typeof customers)[number]) => {
      while (Date.now() < deadline) {
        try {
          await step(c);
        } catch (e) {
          const k = `exception ${(e as Error).message.slice(0, 80)}`;
          unexpected[k] = (unexpected[k] ?? 0) + 1;
        }
        await sleep(100 + randomInt(300));
      }
    };

    // Faults, alternating: Redis stopped 20 s and restarted empty; the worker killed and restarted.
    const faults = { redis_restarts: 0, worker_kills: 0 };
    const faultLoop = async () => {
      let i = 0;
      while (Date.now() + FAULT_EVERY_MS < deadline) {
        await sleep(FAULT_EVERY_MS);
        if (i++ % 2 === 0) {
          log('fault: stopping Redis for 20 s');
          await redis.stop();
          await sleep(20_000);
          await redis.start();
          faults.redis_restarts++;
          log('fault: Redis back (empty)');
        } else {
          log('fault: SIGKILL the worker, restart in 10 s');
          const w = worker as ChildProcess | null;
          if (w && w.exitCode === null) {
            const gone = new Promise((r) => w.once('exit', r));
            w.kill('SIGKILL');
            await gone;
          }
          faults.worker_kills++;
          await sleep(10_000);
          await startWorkerProcess();
          log('fault: worker back');
        }
      }
    };

    log(`${CUSTOMERS} customers for ${MINUTES} min; a fault every ${FAULT_EVERY_MS / 1000} s`);
    const t0 = Date.now();
    await Promise.all([...customers.map(customerLoop), faultLoop()]);
    const minutes = (Date.now() - t0) / 60_000;
    log(`customers stopped after ${minutes.toFixed(1)} min: ${JSON.stringify(ops)}`);

    // Decide the draws that sold out, so the winner checks have something to re-derive.
    let decided = 0;
    const closed = await setupDb('draws').where({ status: 'closed' }).count<{ c: number }[]>({ c: '*' });
    if (Number(closed[0].c) > 0) {
      const numbers = new Set<number>();
      while (numbers.size < 20) numbers.add(randomInt(100));
      try {
        const out = await s.results.record(
          { contest_number: 3000, numbers: [...numbers], drawn_at: new Date() },
          { actorUserId: null, actor: 'cli', source: 'cli' },
        );
        decided = out.decided.length;
      } catch (e) {
        log(`result not recorded: ${(e as Error).message}`);
      }
    }

    // The books, with the real CLI in a child process.
    const audit = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'cli/index.ts'), 'audit', 'books', '--json'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('exit', (code) => resolve({ code, out, err }));
    });
    let books: { ok: boolean; checks: Array<{ name: string; ok: boolean; count: number; ids: unknown[]; note?: string }> } | null = null;
    try {
      books = JSON.parse(audit.out);
    } catch {
      log(`audit books did not print one JSON document (exit ${audit.code}):\n${audit.out}\n${audit.err}`);
    }
    const failed = books?.checks.filter((c) => !c.ok) ?? [];
    const booksLine = books
      ? `${books.ok ? 'clean' : 'NOT clean'} (exit ${audit.code}; ${books.checks.length} checks${failed.length ? `; failed: ${failed.map((c) => `${c.name} ${c.count} [${c.ids.slice(0, 10).join(', ')}]`).join('; ')}` : ''})`
      : `no report (exit ${audit.code})`;
    const waiting = books?.checks.filter((c) => c.note).map((c) => `${c.name}: ${c.note}`) ?? [];

    const db = setupDb;
    const count = async (q: any) => Number((await q.count({ c: '*' }))[0].c);
    const facts = {
      payments: await count(db('payments')),
      approved: await count(db('payments').where({ status: 'approved' })),
      refunded: await count(db('payments').whereIn('status', ['refunded', 'charged_back'])),
      sales: await count(db('number_sales')),
      voided: await count(db('number_sales').whereNotNull('voided_at')),
      expired_holds: await count(db('reservations').where({ status: 'expired' })),
      draws: await count(db('draws')),
      decided,
    };
    const totalOps = Object.entries(ops)
      .filter(([k]) => k !== 'conflicts')
      .reduce((a, [, v]) => a + v, 0);
    const unexpectedLine = Object.keys(unexpected).length
      ? Object.entries(unexpected)
          .map(([k, v]) => `${k} ×${v}`)
          .join('; ')
      : 'none';
    const table = [
      '| Minutes | Customers | Operations | Faults | Books |',
      '|---:|---:|---:|---|---|',
      `| ${minutes.toFixed(1)} | ${CUSTOMERS} | ${totalOps} | ${faults.redis_restarts} Redis stop+restart (empty), ${faults.worker_kills} worker SIGKILL+restart | ${booksLine} |`,
    ].join('\n');
    console.log(`\n${table}\n`);
    console.log(
      `operations: ${JSON.stringify(ops)}\nunexpected answers: ${unexpectedLine}\n${sample.join('\n')}\ndatabase: ${JSON.stringify(facts)}`,
    );

    const section = [
      SECTION_TITLE,
      '',
      'Command (from the repository root; provisions its own PostgreSQL like `npm test`, and a private Redis it can stop):',
      '',
      '```sh',
      `SOAK_MINUTES=${MINUTES} SOAK_CUSTOMERS=${CUSTOMERS} node --import tsx bench/soak.ts`,
      '```',
      '',
      `- Date: ${new Date().toISOString()}`,
      machineLine(loadAtStart),
      `- Setup: the app (PAYMENT_PROVIDER=mercadopago against a local fake of its API) in the bench process, the real worker as a child process (started ${workerStarts} times), a private redis-server without persistence, holds of 1 minute, one e-book at R$ 2,00 whose 100-number draws sell out and are succeeded. A fault every ${FAULT_EVERY_MS / 1000} s, alternating: Redis stopped for 20 s and restarted empty; the worker SIGKILLed and restarted 10 s later.`,
      `- Operations (${totalOps}): ${ops.ebook_bought} e-book purchases (1-3 e-books each) paid by PIX and approved by webhook, ${ops.numbers_picked} numbers picked with their vouchers, ${ops.reservation_paid} reservations paid by PIX, ${ops.refunded} refunds and ${ops.charged_back} chargebacks notified by webhook, ${ops.hold_abandoned} holds left to expire; ${ops.conflicts} number conflicts (409, picked again).`,
      `- Unexpected answers: ${unexpectedLine}.`,
      `- Database at the end: ${facts.payments} payments (${facts.approved} approved, ${facts.refunded} refunded or charged back), ${facts.sales} sales (${facts.voided} voided by refunds), ${facts.expired_holds} holds expired, ${facts.draws} draws (${facts.decided} decided from a recorded result at the end).`,
      `- \`cotaverde audit books --json\` at the end: ${booksLine}.${waiting.length ? ` Waiting: ${waiting.join('; ')}.` : ''}`,
      '',
      table,
      '',
      "Reading: most purchases end with their vouchers unused (each customer's next step is random, and a",
      'full board — sold plus 1-minute holds — makes a pick wait); the board still sold out and those draws',
      "were decided, so every check of the books had rows to read. Refunds go through today's refund path",
      '(unused vouchers revoked, directly bought numbers released); once voucher lots land, the same run',
      'exercises voiding the numbers bought with a refunded lot.',
      '',
    ].join('\n');
    writeSection(path.join(ROOT, 'docs', 'BENCHMARKS.md'), section);
    console.log('docs/BENCHMARKS.md updated.');
    process.exitCode = books?.ok ? 0 : 1;
  } finally {
    const w = worker as ChildProcess | null;
    if (w && w.exitCode === null) {
      const gone = new Promise((r) => w.once('exit', r));
      w.kill('SIGTERM');
      await Promise.race([gone, sleep(20_000)]);
      if (w.exitCode === null) w.kill('SIGKILL');
    }
    await cleanUpInProcessRun({
      worker: null,
      server,
      services,
      queuePrefix,
      more: async () => {
        await fake.close();
        await redis.stop();
      },
      setupDb,
      infra,
      dbName,
    });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
