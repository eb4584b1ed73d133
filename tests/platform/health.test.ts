import { createTestContext, type TestContext } from '../helpers/context';

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

  test('GET /api/ready checks database and redis', async () => {
    const r = await t.api('GET', '/api/ready');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready', database: true, redis: true });
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
