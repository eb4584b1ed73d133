/**
 * PIX approval → vouchers visible, with Mercado Pago (a local fake of its API):
 *
 *   node --import tsx bench/payments.ts          (PAYMENTS=200 by default)
 *
 * 1. Provisions PostgreSQL + Redis like `npm test` does (scripts/provision.ts,
 *    test profile), creates a throw-away database and migrates it.
 * 2. Starts the fake Mercado Pago (tests/helpers/fake-mercadopago.ts), then, in
 *    this process, the real app (createServices + createApp with
 *    PAYMENT_PROVIDER=mercadopago against the fake) and a real BullMQ worker
 *    (startWorker + the job registry: poll jobs for every pending payment,
 *    reconciliation), as in production.
 * 3. Creates PAYMENTS e-book payments over HTTP (200 users, 1-3 e-books each).
 * 4. For each payment: the fake marks it approved and delivers a signed webhook
 *    to the app; the time from the webhook being sent to the vouchers being
 *    visible is measured.
 *      - first half, one at a time: a client polls GET /api/vouchers/remaining
 *        back to back from the moment the webhook leaves;
 *      - second half, as a burst: every webhook at once, one watcher polls the
 *        voucher_balances rows of those users every 2 ms.
 *    Then it checks every payment is approved with exactly one grant.
 * 5. Prints a table and writes the section "PIX approval → vouchers visible"
 *    into docs/BENCHMARKS.md (replacing that section only; other sections stay).
 */
import http from 'node:http';
import os from 'node:os';
import { benchEnv, cleanUpInProcessRun, machineLine, writeSection } from './lib';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const ROOT = path.resolve(__dirname, '..');
const PAYMENTS = Number(process.env.PAYMENTS ?? 200);
const SECRET = 'bench-webhook-secret-0123456789';
const SECTION_TITLE = '## PIX approval → vouchers visible';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function stats(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

const ms = (v: number) => v.toFixed(1);

async function main() {
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const { loadConfig } = await import('../src/platform/config');
  const { createServices } = await import('../src/services');
  const { createApp } = await import('../src/http');
  const { startWorker } = await import('../src/platform/queue');
  const { registerJobHandlers } = await import('../jobs/registry');
  const { insertDrawWithNumbers } = await import('../src/draws/queries');
  const { insertSession } = await import('../src/auth/queries');
  const { sha256 } = await import('../src/auth/service');
  const { startFakeMercadoPago } = await import('../tests/helpers/fake-mercadopago');

  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_pay_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvbenchpay${process.pid}`;
  const setupDb = createDb(infra.databaseUrl, 4);
  const fake = await startFakeMercadoPago();
  let services: ReturnType<typeof createServices> | null = null;
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  let server: http.Server | null = null;
  try {
    await migrateLatest(setupDb);

    const server0 = http.createServer();
    await new Promise<void>((r) => server0.listen(0, '127.0.0.1', r));
    const port = (server0.address() as AddressInfo).port;
    await new Promise((r) => server0.close(r));
    const appUrl = `http://127.0.0.1:${port}`;

    const config = loadConfig({
      ...benchEnv(infra, queuePrefix),
      PUBLIC_URL: appUrl,
      PAYMENT_PROVIDER: 'mercadopago',
      MERCADOPAGO_ACCESS_TOKEN: fake.token,
      MERCADOPAGO_WEBHOOK_SECRET: SECRET,
      MERCADOPAGO_API_URL: fake.url,
    });
    services = createServices({ config });
    const s = services;
    server = http.createServer(createApp(s, { serveWeb: false }).callback());
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    worker = await startWorker({
      connection: s.redis,
      prefix: queuePrefix,
      handlers: registerJobHandlers(s),
      logger: s.logger,
      queue: s.queue,
    });

    // Catalogue: one e-book at R$ 5,00 with an open draw (no per-user limit).
    const [product] = await setupDb('infoproducts').insert({ sku: 'BENCH-PIX', title: 'E-book do bench', price_cents: 500 }).returning('*');
    const draw = await setupDb.transaction((trx) =>
      insertDrawWithNumbers(trx, {
        infoproduct_id: product.id,
        title: 'Bench PIX',
        total_numbers: 100,
        prize_cents: 0,
        ticket_price_cents_override: null,
        max_per_user: 0,
      }),
    );
    const users: Array<{ id: number; token: string }> = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const [u] = await setupDb('users')
        .insert({ name: `Pessoa Bench ${i} Souza`, email: `benchpix${i}-${randomBytes(3).toString('hex')}@example.com` })
        .returning('id');
      const token = randomBytes(32).toString('base64url');
      await insertSession(setupDb, u.id, sha256(token), 1);
      users.push({ id: u.id, token });
    }

    const api = async (method: string, p: string, token?: string, body?: unknown) => {
      const res = await fetch(appUrl + p, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    // 3. Payments, 10 at a time.
    console.log(`creating ${PAYMENTS} PIX payments…`);
    const created: Array<{ user: { id: number; token: string }; paymentId: number; mpId: number; quantity: number }> = [];
    const t0create = performance.now();
    for (let i = 0; i < PAYMENTS; i += 10) {
      const batch = users.slice(i, i + 10).map(async (user, j) => {
        const quantity = 1 + ((i + j) % 3);
        const r = await api('POST', '/api/payments/infoproduct', user.token, {
          infoproduct_id: product.id,
          quantity,
          amount_cents_total: 500 * quantity,
        });
        if (r.status !== 201) throw new Error(`payment creation failed: ${r.status} ${JSON.stringify(r.body)}`);
        const row = await setupDb('payments').where({ id: r.body.paymentId }).first('provider_payment_id');
        return { user, paymentId: r.body.paymentId as number, mpId: Number(row.provider_payment_id), quantity };
      });
      created.push(...(await Promise.all(batch)));
    }
    const createMs = performance.now() - t0create;
    console.log(`created in ${(createMs / 1000).toFixed(1)} s`);

    // Warm-up outside the sample: one extra user, paid and notified.
    {
      const [u] = await setupDb('users')
        .insert({ name: 'Aquecimento', email: `warm-${randomBytes(3).toString('hex')}@example.com` })
        .returning('id');
      const token = randomBytes(32).toString('base64url');
      await insertSession(setupDb, u.id, sha256(token), 1);
      const r = await api('POST', '/api/payments/infoproduct', token, { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 });
      const row = await setupDb('payments').where({ id: r.body.paymentId }).first('provider_payment_id');
      fake.setStatus(row.provider_payment_id, 'approved');
      await fake.notify(appUrl, row.provider_payment_id, { secret: SECRET });
      await api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, token);
    }

    const half = Math.floor(created.length / 2);
    const sequential = created.slice(0, half);
    const burst = created.slice(half);
    let webhookErrors = 0;

    // 4a. One at a time; the client polls GET /api/vouchers/remaining back to back.
    console.log(`one at a time: ${sequential.length} approvals…`);
    const seqVisible: number[] = [];
    const seqWebhook: number[] = [];
    for (const c of sequential) {
      fake.setStatus(c.mpId, 'approved');
      const req = fake.notification(appUrl, c.mpId, { secret: SECRET });
      const start = performance.now();
      const hook = fetch(req.url, req.init).then(async (res) => {
        seqWebhook.push(performance.now() - start);
        if (res.status !== 200) webhookErrors++;
        await res.arrayBuffer();
      });
      for (;;) {
        const r = await api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, c.user.token);
        if (r.status === 200 && r.body.remaining >= c.quantity) break;
        if (performance.now() - start > 30_000) throw new Error(`vouchers of payment ${c.paymentId} never became visible`);
      }
      seqVisible.push(performance.now() - start);
      await hook;
    }

    // 4b. Burst: every webhook at once; one watcher reads the balance rows every 2 ms.
    console.log(`burst: ${burst.length} approvals at once…`);
    const watcher = new pg.Client({ connectionString: infra.databaseUrl });
    await watcher.connect();
    for (const c of burst) fake.setStatus(c.mpId, 'approved');
    const want = new Map(burst.map((c) => [c.user.id, c.quantity]));
    const seenAt = new Map<number, number>();
    const burstWebhook: number[] = [];
    const startBurst = performance.now();
    const hooks = burst.map((c) => {
      const req = fake.notification(appUrl, c.mpId, { secret: SECRET });
      const start = performance.now();
      return fetch(req.url, req.init).then(async (res) => {
        burstWebhook.push(performance.now() - start);
        if (res.status !== 200) webhookErrors++;
        await res.arrayBuffer();
      });
    });
    const ids = [...want.keys()];
    while (seenAt.size < ids.length) {
      const r = await watcher.query(
        'SELECT user_id, balance FROM voucher_balances WHERE user_id = ANY($1::bigint[]) AND infoproduct_id = $2',
        [ids, product.id],
      );
      const now = performance.now();
      for (const row of r.rows) {
        const uid = Number(row.user_id);
        if (!seenAt.has(uid) && row.balance >= (want.get(uid) as number)) seenAt.set(uid, now - startBurst);
      }
      if (now - startBurst > 60_000) throw new Error('burst: vouchers never all became visible');
      await sleep(2);
    }
    await Promise.all(hooks);
    await watcher.end();
    const burstVisible = [...seenAt.values()];

    // 5. Exactly once, for every payment.
    const paymentIds = created.map((c) => c.paymentId);
    const approved = await setupDb('payments').whereIn('id', paymentIds).where({ status: 'approved' }).count<{ c: number }[]>({ c: '*' });
    const grants = await setupDb('voucher_ledger')
      .whereIn('payment_id', paymentIds)
      .groupBy('payment_id')
      .select('payment_id', setupDb.raw('count(*)::int AS n'), setupDb.raw('sum(delta)::int AS total'));
    const byPayment = new Map(grants.map((g: { payment_id: number; n: number; total: number }) => [Number(g.payment_id), g]));
    const exactlyOnce = created.filter((c) => {
      const g = byPayment.get(c.paymentId);
      return g && g.n === 1 && g.total === c.quantity;
    }).length;
    const fulfilments = await setupDb('payment_fulfilments').whereIn('payment_id', paymentIds).count<{ c: number }[]>({ c: '*' });

    const seq = stats(seqVisible);
    const seqHook = stats(seqWebhook);
    const bur = stats(burstVisible);
    const burHook = stats(burstWebhook);
    const rows = [
      ['One at a time (client polls `GET /api/vouchers/remaining`)', seq, seqHook],
      [`Burst: ${burst.length} webhooks at once (watcher reads \`voucher_balances\` every 2 ms)`, bur, burHook],
    ] as const;
    const table = [
      '| Delivery | Payments | Visible p50 (ms) | Visible p95 (ms) | Visible max (ms) | Webhook answer p50 / p95 / max (ms) |',
      '|---|---:|---:|---:|---:|---|',
      ...rows.map(
        ([label, v, h]) =>
          `| ${label} | ${v.n} | ${ms(v.p50)} | ${ms(v.p95)} | ${ms(v.max)} | ${ms(h.p50)} / ${ms(h.p95)} / ${ms(h.max)} |`,
      ),
    ].join('\n');
    console.log(`\n${table}\n`);
    const checks = `${Number(approved[0].c)}/${created.length} approved, ${exactlyOnce}/${created.length} with exactly one grant of their quantity, ${Number(fulfilments[0].c)} fulfilment rows, ${webhookErrors} non-200 webhook answers`;
    console.log(checks);

    const section = [
      SECTION_TITLE,
      '',
      'Command (from the repository root; provisions its own PostgreSQL and Redis like `npm test`):',
      '',
      '```sh',
      'node --import tsx bench/payments.ts',
      '```',
      '',
      `- Date: ${new Date().toISOString()}`,
      machineLine(loadAtStart),
      `- Setup: the app (PAYMENT_PROVIDER=mercadopago, LOG_LEVEL=silent) and a real BullMQ worker in one process, a local fake of Mercado Pago's API in the same process, embedded PostgreSQL of the test profile (fsync off), own Redis. ${PAYMENTS} e-book payments (1-3 e-books each) created over HTTP in ${(createMs / 1000).toFixed(1)} s; their poll jobs were live during the run.`,
      '- Measured: from the signed webhook leaving the "Mercado Pago" side (payment already approved there) to the vouchers being visible. The app verifies the signature, re-fetches the payment from the fake API and fulfils in one transaction before answering 200.',
      '',
      table,
      '',
      `Correctness after the run: ${checks}.`,
      '',
    ].join('\n');
    writeSection(path.join(ROOT, 'docs', 'BENCHMARKS.md'), section);
    console.log('docs/BENCHMARKS.md updated.');
  } finally {
    await cleanUpInProcessRun({ worker, server, services, queuePrefix, more: () => fake.close(), setupDb, infra, dbName });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
