/**
 * Autopay: a new main draw opens → every captive number held and every saved card charged once.
 *
 *   node --import tsx bench/autopay.ts          (PROFILES=500, NUMBERS_EACH=3 by default)
 *
 * 1. Provisions PostgreSQL + Redis like `npm test` (scripts/provision.ts, test profile), a
 *    throw-away database, migrated.
 * 2. In this process: the real app (sandbox provider) over HTTP and a real BullMQ worker with the
 *    production schedules (the outbox relay every 2 s) and job registry.
 * 3. PROFILES users each tokenize a sandbox test card and save NUMBERS_EACH captive numbers over
 *    HTTP (POST /api/sandbox/card-tokens, POST /api/me/autopay), inactive at first.
 * 4. A captive number belongs to one active profile at a time and captive numbers are 00-99, so
 *    at most floor(100 / NUMBERS_EACH) profiles (33 with 3 numbers) can be active in one draw:
 *    500 profiles × 3 numbers = 1500 claims do not fit one board. The bench therefore opens
 *    ceil(PROFILES / 33) successive main draws; before each, the next 33 profiles are switched
 *    active (and the previous ones inactive) over HTTP. For each draw it measures
 *      - the opening transaction (close + open successor + holds + runs, one commit), and
 *      - from that commit to every run of the draw settled (outbox relay → autopay.charge →
 *        one charge per profile → numbers sold), polling autopay_runs every 10 ms.
 * 5. Checks: every run approved, each profile charged exactly once (sandbox_card_calls, the calls
 *    the sandbox "bank" received: must equal PROFILES), every captive number sold to its owner.
 *    Writes the section "Autopay: draw opening → every run settled" into docs/BENCHMARKS.md.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { benchEnv, cleanUpInProcessRun, machineLine, writeSection } from './lib';

const ROOT = path.resolve(__dirname, '..');
const PROFILES = Number(process.env.PROFILES ?? 500);
const NUMBERS_EACH = Number(process.env.NUMBERS_EACH ?? 3);
const SECTION_TITLE = '## Autopay: draw opening → every run settled';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stats(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const pct = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return {
    n: s.length,
    p50: pct(50),
    p95: pct(95),
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    sum: s.reduce((a, b) => a + b, 0),
  };
}
const ms = (v: number) => v.toFixed(0);

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
  const { writeAppConfig } = await import('../src/platform/app-config');

  const perDraw = Math.floor(100 / NUMBERS_EACH);
  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_autopay_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvbenchap${process.pid}`;
  const setupDb = createDb(infra.databaseUrl, 4);
  let services: ReturnType<typeof createServices> | null = null;
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  let server: http.Server | null = null;
  try {
    await migrateLatest(setupDb);
    const config = loadConfig({
      ...benchEnv(infra, queuePrefix),
      PAYMENT_PROVIDER: 'sandbox',
    });
    services = createServices({ config });
    const s = services;
    server = http.createServer(createApp(s, { serveWeb: false }).callback());
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    worker = await startWorker({
      connection: s.redis,
      prefix: queuePrefix,
      handlers: registerJobHandlers(s),
      logger: s.logger,
      queue: s.queue,
    });

    const api = async (method: string, p: string, token: string, body?: unknown) => {
      const res = await fetch(appUrl + p, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    // The main series: one e-book at R$ 2,00 a number, no per-person limit, its first draw open.
    const [product] = await setupDb('infoproducts')
      .insert({ sku: 'BENCH-AUTOPAY', title: 'E-book do bench', price_cents: 200 })
      .returning('*');
    await writeAppConfig(setupDb, { main_infoproduct_id: product.id });
    let current = await setupDb.transaction((trx) =>
      insertDrawWithNumbers(trx, {
        infoproduct_id: product.id,
        title: 'Bench autopay',
        total_numbers: 100,
        prize_cents: 0,
        ticket_price_cents_override: null,
        max_per_user: 0,
      }),
    );

    // 3. Users, sandbox tokens and profiles over HTTP (inactive), 20 at a time.
    console.log(`saving ${PROFILES} autopay profiles (${NUMBERS_EACH} captive numbers each)…`);
    const users: Array<{ id: number; token: string; numbers: number[] }> = [];
    for (let i = 0; i < PROFILES; i++) {
      const [u] = await setupDb('users')
        .insert({ name: `Pessoa Autopay ${i} Lima`, email: `benchap${i}-${randomBytes(3).toString('hex')}@example.com` })
        .returning('id');
      const token = randomBytes(32).toString('base64url');
      await insertSession(setupDb, u.id, sha256(token), 1);
      const slot = i % perDraw;
      users.push({ id: u.id, token, numbers: Array.from({ length: NUMBERS_EACH }, (_, k) => slot * NUMBERS_EACH + k) });
    }
    const t0save = performance.now();
    for (let i = 0; i < users.length; i += 20) {
      await Promise.all(
        users.slice(i, i + 20).map(async (u) => {
          const tok = await api('POST', '/api/sandbox/card-tokens', u.token, {
            card_number: '4111111111111111',
            expiration_month: 12,
            expiration_year: 2035,
            security_code: '123',
            cardholder_name: 'PESSOA BENCH',
            doc_number: '52998224725',
          });
          if (tok.status !== 201) throw new Error(`tokenize: ${tok.status} ${JSON.stringify(tok.body)}`);
          const r = await api('POST', '/api/me/autopay', u.token, {
            active: false,
            numbers: u.numbers,
            holder_name: 'PESSOA BENCH',
            doc_number: '52998224725',
            card_token: tok.body.id,
          });
          if (r.status !== 200) throw new Error(`save: ${r.status} ${JSON.stringify(r.body)}`);
        }),
      );
    }
    const saveMs = performance.now() - t0save;

    // 4. Successive main draws, perDraw active profiles each.
    const rounds: Array<{ drawId: number; profiles: number; openMs: number; settleMs: number }> = [];
    for (let start = 0; start < users.length; start += perDraw) {
      const group = users.slice(start, start + perDraw);
      const prev = start > 0 ? users.slice(start - perDraw, start) : [];
      for (const u of prev) await api('POST', '/api/me/autopay', u.token, { active: false, numbers: u.numbers });
      await Promise.all(
        group.map(async (u) => {
          const r = await api('POST', '/api/me/autopay', u.token, { active: true, numbers: u.numbers });
          if (r.status !== 200) throw new Error(`activate: ${r.status} ${JSON.stringify(r.body)}`);
        }),
      );
      const t0 = performance.now();
      const opened = await s.db.transaction(async (trx) => {
        await trx('draws').where({ id: current.id }).forUpdate().first();
        return s.draws.closeAndOpenSuccessor(trx, current.id, 'admin');
      });
      const t1 = performance.now();
      const drawId = opened.successorId!;
      for (;;) {
        const r = await setupDb('autopay_runs')
          .where({ draw_id: drawId })
          .select(setupDb.raw(`count(*) FILTER (WHERE status IN ('held', 'charging'))::int AS pending, count(*)::int AS total`))
          .first();
        if (r.total === group.length && r.pending === 0) break;
        await sleep(10);
      }
      const t2 = performance.now();
      rounds.push({ drawId, profiles: group.length, openMs: t1 - t0, settleMs: t2 - t1 });
      console.log(`draw #${drawId}: ${group.length} profiles, opening ${ms(t1 - t0)} ms, settled ${ms(t2 - t1)} ms after the commit`);
      current = (await setupDb('draws').where({ id: drawId }).first())!;
    }

    // 5. Checks.
    const runs = await setupDb('autopay_runs').select('status', 'draw_id', 'numbers', 'attempts');
    const approved = runs.filter((r: any) => r.status === 'approved').length;
    const calls = await setupDb('sandbox_card_calls').select('idempotency_key', 'result');
    const distinctKeys = new Set(calls.map((c: any) => c.idempotency_key)).size;
    const sold = await setupDb('number_sales').where({ source: 'autopay' }).whereNull('voided_at').count<{ c: string }[]>({ c: '*' });
    const payments = await setupDb('payments').where({ kind: 'autopay', status: 'approved' }).count<{ c: string }[]>({ c: '*' });
    const open = stats(rounds.map((r) => r.openMs));
    const settle = stats(rounds.map((r) => r.settleMs));
    const total = rounds.reduce((a, r) => a + r.settleMs, 0);
    const table = [
      '| measure | draws | p50 (ms) | p95 (ms) | max (ms) | mean (ms) |',
      '|---|---:|---:|---:|---:|---:|',
      `| opening transaction (close + open + holds + runs) | ${open.n} | ${ms(open.p50)} | ${ms(open.p95)} | ${ms(open.max)} | ${ms(open.mean)} |`,
      `| opening commit → every run of the draw settled | ${settle.n} | ${ms(settle.p50)} | ${ms(settle.p95)} | ${ms(settle.max)} | ${ms(settle.mean)} |`,
    ].join('\n');
    const checks = `${runs.length} runs, ${approved} approved; ${calls.length} provider calls for ${distinctKeys} distinct runs (must be ${PROFILES}); ${payments[0].c} approved autopay payments; ${sold[0].c} numbers sold by autopay (${PROFILES * NUMBERS_EACH} captive)`;
    console.log(`\n${table}\n\n${checks}`);
    const ok =
      calls.length === PROFILES && distinctKeys === PROFILES && approved === PROFILES && Number(sold[0].c) === PROFILES * NUMBERS_EACH;
    if (!ok) throw new Error(`autopay bench check failed: ${checks}`);

    const section = [
      SECTION_TITLE,
      '',
      'Command (from the repository root; provisions its own PostgreSQL and Redis like `npm test`):',
      '',
      '```sh',
      'node --import tsx bench/autopay.ts',
      '```',
      '',
      `- Date: ${new Date().toISOString()}`,
      machineLine(loadAtStart),
      `- Setup: the app (PAYMENT_PROVIDER=sandbox, LOG_LEVEL=silent) and a real BullMQ worker (production schedules: outbox relay every 2 s; charge concurrency 4 per draw) in one process, embedded PostgreSQL of the test profile (fsync off), own Redis. ${PROFILES} users each tokenized a sandbox card and saved ${NUMBERS_EACH} captive numbers over HTTP in ${(saveMs / 1000).toFixed(1)} s.`,
      `- Why several draws: captive numbers are 00-99 and each belongs to one active profile at a time, so one board holds at most ${perDraw} profiles of ${NUMBERS_EACH} numbers; the ${PROFILES} profiles (${PROFILES * NUMBERS_EACH} claims) are charged over ${rounds.length} successive main draws, ${perDraw} active profiles each (switched over HTTP before each opening).`,
      "- Measured per draw: the opening transaction (the admin's NOVO SORTEIO path: close, open the successor, hold every active profile's numbers, create the runs, write draw.opened), then from its commit to every run settled (outbox relay → autopay.charge → one sandbox charge per profile → numbers sold, coupon credit). The relay's 2 s period is part of the second figure.",
      '',
      table,
      '',
      `- Sum over the ${rounds.length} draws of "commit → settled": ${(total / 1000).toFixed(1)} s for ${PROFILES} charges.`,
      `- Correctness after the run: ${checks}. Provider calls = profiles: each card was charged exactly once.`,
      '',
    ].join('\n');
    writeSection(path.join(ROOT, 'docs', 'BENCHMARKS.md'), section);
    console.log('docs/BENCHMARKS.md updated.');
  } finally {
    await cleanUpInProcessRun({ worker, server, services, queuePrefix, setupDb, infra, dbName });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
