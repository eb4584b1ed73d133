import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/eventually';
import { openSse } from '../helpers/sse';
import { startTestWorker } from '../helpers/worker';
import { grant } from '../draws/fixtures';
import { buyEbooks, makeProductWithDraw, reserve } from '../payments/fixtures';
import { metricsRoute, recordBooksCheck, startMetricsServer } from '../../src/platform/metrics';
import { UnrecoverableError, type RunningWorker } from '../../src/platform/queue';
import { registerJobHandlers } from '../../jobs/registry';

/**
 * GET /metrics (Prometheus text, platform/metrics.ts and ops/metrics.ts): the series the
 * operators' alerts read, the access rule (open outside production; bearer METRICS_TOKEN in
 * production, else 404) and the worker's own metrics server.
 */
let t: TestContext;
let running: RunningWorker | null = null;

beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await running?.close();
  await t.close();
});

async function scrape(url = `${t.url}/metrics`, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The value of one series line (name and exact labels), or null. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_:]+)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[3] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[4]);
  }
  return null;
}

test('development: the request latency histogram by route and status, reservations and conflicts, payments by status and provider, queue depth, open streams, books check', async () => {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const a = await createUser(t);
  const b = await createUser(t);
  await grant(t, a.user.id, product.id, 1);
  await grant(t, b.user.id, product.id, 1);
  // Twice: Koa, then the fast lane (both observed under the router path).
  for (let i = 0; i < 2; i++) expect((await t.api('GET', `/api/draws/${draw.id}/numbers`)).status).toBe(200);
  expect((await t.api('GET', '/api/draws/abc/numbers')).status).toBe(400);
  await reserve(t, a.token, draw.id, [3]);
  expect((await t.api('POST', '/api/reservations', { token: b.token, body: { draw_id: draw.id, numbers: [3] } })).status).toBe(409);
  await buyEbooks(t, a.token, product.id, 1, 500);
  const stream = await openSse(`${t.url}/api/draws/${draw.id}/events`);
  await stream.waitFor((e) => e.event === 'board', 'the board');
  recordBooksCheck(false, new Date('2026-11-25T03:00:00Z'));
  try {
    const m = await scrape();
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain/);
    expect(
      value(m.text, 'cotaverde_http_request_duration_seconds_count', { method: 'GET', route: '/api/draws/:id/numbers', status: '200' }),
    ).toBeGreaterThanOrEqual(2);
    expect(value(m.text, 'cotaverde_http_request_duration_seconds_count', { route: '/api/draws/:id/numbers', status: '400' })).toBe(1);
    expect(
      value(m.text, 'cotaverde_http_request_duration_seconds_bucket', { route: '/api/draws/:id/numbers', status: '200', le: '+Inf' }),
    ).toBeGreaterThanOrEqual(2);
    expect(value(m.text, 'cotaverde_reservations_total', { outcome: 'created' })).toBeGreaterThanOrEqual(1);
    expect(value(m.text, 'cotaverde_reservations_total', { outcome: 'conflict' })).toBeGreaterThanOrEqual(1);
    expect(value(m.text, 'cotaverde_payments', { status: 'pending', provider: 'sandbox' })).toBe(1);
    expect(value(m.text, 'cotaverde_payments_oldest_pending_seconds')).toBeGreaterThanOrEqual(0);
    expect(value(m.text, 'cotaverde_queue_jobs', { queue: 'main', state: 'delayed' })).toBeGreaterThanOrEqual(1); // the reservation's expiry
    expect(value(m.text, 'cotaverde_live_streams_open')).toBe(1);
    expect(value(m.text, 'cotaverde_books_check_ok')).toBe(0);
    expect(value(m.text, 'cotaverde_books_check_timestamp_seconds')).toBe(Date.parse('2026-11-25T03:00:00Z') / 1000);
    expect(value(m.text, 'cotaverde_process_resident_memory_bytes', { role: 'web' })).toBeGreaterThan(0);
    // Never the raw URL as a label (one series per draw id would grow without end).
    expect(m.text).not.toContain(`/api/draws/${draw.id}/`);
    // The nightly books audit sets it: these books balance.
    const report = await t.services.books.runNightly();
    expect(report.ok).toBe(true);
    expect(value((await scrape()).text, 'cotaverde_books_check_ok')).toBe(1);
    recordBooksCheck(false);
    expect(value((await scrape()).text, 'cotaverde_books_check_ok')).toBe(0);
  } finally {
    stream.close();
  }
  await eventually(async () => value((await scrape()).text, 'cotaverde_live_streams_open') === 0, 'the stream counted out');
});

test('production: 404 without the bearer METRICS_TOKEN (or with a wrong one, or with none configured); 200 with it', async () => {
  const token = 'm'.repeat(24);
  async function serve(cfg: { token?: string }) {
    const app = new Koa();
    app.use(metricsRoute({ isProduction: true, metrics: cfg }));
    app.use((ctx) => {
      ctx.body = 'next';
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics` };
  }
  const withToken = await serve({ token });
  const noToken = await serve({});
  try {
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${'x'.repeat(24)}` },
      { authorization: `Basic ${token}` },
      { authorization: `Bearer ${token}x` },
    ];
    for (const headers of refused) {
      const r = await scrape(withToken.url, headers);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.text)).toEqual({ error: 'not_found', message: 'Não encontrado.' });
    }
    const ok = await scrape(withToken.url, { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('cotaverde_http_request_duration_seconds');
    expect((await scrape(noToken.url, { authorization: `Bearer ${token}` })).status).toBe(404);
  } finally {
    withToken.server.close();
    noToken.server.close();
  }
});

test('the worker: job latency and failures per queue on its own metrics server', async () => {
  // The app's handlers, but coupon.sync fails for good (to see a failure counted).
  const handlers = registerJobHandlers(t.services);
  handlers['coupon.sync'] = async () => {
    throw new UnrecoverableError('falha de teste');
  };
  running = await startTestWorker(t, { concurrency: 1, handlers });
  const server = await startMetricsServer({ isProduction: false, metrics: {} }, 0, '127.0.0.1', t.services.logger);
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A reset mail: one mail.send job through the worker.
    const u = await createUser(t);
    expect(
      (await t.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: { 'x-forwarded-for': '10.98.0.1' } })).status,
    ).toBe(202);
    const m = await eventually(async () => {
      const r = await scrape(`${url}/metrics`);
      return (value(r.text, 'cotaverde_job_duration_seconds_count', { queue: 'main', job: 'mail.send', outcome: 'completed' }) ?? 0) >= 1
        ? r
        : null;
    }, 'the mail job observed');
    expect(value(m.text, 'cotaverde_job_wait_seconds_count', { queue: 'main', job: 'mail.send' })).toBeGreaterThanOrEqual(1);
    await t.services.queue.enqueue('coupon.sync', { userId: u.user.id } as never, { attempts: 1 });
    const failed = await eventually(async () => {
      const r = await scrape(`${url}/metrics`);
      return (value(r.text, 'cotaverde_job_failures_total', { queue: 'main', job: 'coupon.sync' }) ?? 0) >= 1 ? r : null;
    }, 'the failed job counted');
    expect(
      value(failed.text, 'cotaverde_job_duration_seconds_count', { queue: 'main', job: 'coupon.sync', outcome: 'failed' }),
    ).toBeGreaterThanOrEqual(1);
    expect((await scrape(`${url}/other`)).status).toBe(404);
  } finally {
    server.close();
  }
});
