import { createTestContext, type TestContext } from '../helpers/context';
import { startTestWorker } from '../helpers/worker';
import { beat, heartbeatKey, HEARTBEAT_STALE_MS } from '../../src/platform/heartbeat';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('platform endpoints', () => {
  test('GET /api/health answers ok with a request id', async () => {
    const r = await t.api('GET', '/api/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('a valid incoming X-Request-Id is echoed back', async () => {
    const r = await t.api('GET', '/api/health', { headers: { 'x-request-id': 'abc12345-req' } });
    expect(r.headers.get('x-request-id')).toBe('abc12345-req');
  });

  test('GET /api/ready names database, Redis and the worker heartbeat: no worker ever beat → 200 degraded, worker down', async () => {
    const r = await t.api('GET', '/api/ready');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({
      status: 'degraded',
      database: true,
      redis: true,
      worker: {
        status: 'missing',
        heartbeat_age_ms: null,
        live_workers: 0,
        stale_after_ms: HEARTBEAT_STALE_MS,
        schedules: { status: 'ok', missing: [] },
      },
      down: ['worker'],
    });
  });

  test('GET /api/ready with a running worker: ready, with the heartbeat age', async () => {
    const worker = await startTestWorker(t, { schedules: [], heartbeatMs: 200 });
    try {
      const r = await t.api('GET', '/api/ready');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'ready', database: true, redis: true, worker: { status: 'ok', live_workers: 1 }, down: [] });
      expect(r.body.worker.heartbeat_age_ms).toBeGreaterThanOrEqual(0);
      expect(r.body.worker.heartbeat_age_ms).toBeLessThan(5_000);
    } finally {
      await worker.close();
    }
    // A worker that stopped gracefully removes its beat.
    expect((await t.api('GET', '/api/ready')).body.worker.status).toBe('missing');
  });

  test('GET /api/ready: a heartbeat older than the threshold is stale (200 degraded, age reported)', async () => {
    const prefix = t.services.config.queuePrefix;
    await beat(t.services.fastRedis, prefix, 'gone-host:1', Date.now() - HEARTBEAT_STALE_MS - 5_000);
    const r = await t.api('GET', '/api/ready');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('degraded');
    expect(r.body.down).toEqual(['worker']);
    expect(r.body.worker.status).toBe('stale');
    expect(r.body.worker.live_workers).toBe(0);
    expect(r.body.worker.heartbeat_age_ms).toBeGreaterThan(HEARTBEAT_STALE_MS);
    await t.services.fastRedis.del(heartbeatKey(prefix));
  });

  test('unknown API routes answer JSON 404, never HTML', async () => {
    const r = await t.api('GET', '/api/nope');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'route_not_found', message: 'Rota não encontrada.' });
  });

  test('malformed JSON is a 400 with the error body', async () => {
    const r = await t.api('POST', '/api/auth/login', { rawBody: '{"email":' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('bad_request');
    expect(typeof r.body.message).toBe('string');
  });

  test('oversized bodies are rejected with 413', async () => {
    const r = await t.api('POST', '/api/auth/login', { body: { email: 'a@b.co', password: 'x'.repeat(200_000) } });
    expect(r.status).toBe(413);
    expect(r.body.error).toBe('payload_too_large');
  });

  test('security headers are set', async () => {
    const r = await t.api('GET', '/api/health');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
  });
});
