import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createServices, type Services } from '../../src/services';
import { createApp } from '../../src/http';
import { PublicReadLane } from '../../src/platform/http/fast-lane';
import { ReadCache } from '../../src/platform/read-cache';
import { makeProductWithDraw } from '../draws/fixtures';

/**
 * The public reads' fast lane (src/platform/http/fast-lane.ts): a URL Koa answered from the
 * read cache is answered again from node:http with the same bytes and headers while the cached
 * answer is in the first half of its life; everything else goes through Koa. The app under test
 * runs its read cache on a clock the test moves by hand (exact, not timed).
 */
let t: TestContext;
let services: Services;
let server: http.Server;
let base: string;
const clock = { t: 5_000_000, now: () => clock.t };
const served: boolean[] = [];
let serveSpy: jest.SpyInstance;

beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: 'true', CORS_ORIGINS: 'https://parceiro.example' } });
  services = createServices({ config: t.services.config, readCache: new ReadCache({ now: clock.now }) });
  server = http.createServer(createApp(services, { serveWeb: false }).callback());
  // One process's lane on a hand-moved clock: the set-up writes made through t.services (another
  // "process" on the same Redis prefix) must not reach this cache late through the read-cache bus
  // (tested in multi-process.test.ts), so this app does not listen to it.
  await services.cacheBus.close();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const original = PublicReadLane.prototype.serve;
  serveSpy = jest.spyOn(PublicReadLane.prototype, 'serve').mockImplementation(function (this: PublicReadLane, req, res) {
    const r = original.call(this, req, res);
    served.push(r);
    return r;
  });
});
afterAll(async () => {
  serveSpy.mockRestore();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await services.close();
  await t.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  served.length = 0;
  const res = await fetch(base + path, { headers });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, lane: served[served.length - 1] === true };
}

/** Every header but those that belong to one response. */
function stableHeaders(h: Headers) {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (!['x-request-id', 'date', 'connection', 'keep-alive'].includes(k)) out[k] = v;
  });
  return out;
}

test('the second GET of a public read is answered by the lane, byte for byte and header for header', async () => {
  const { product, draw } = await makeProductWithDraw(t, { title: 'Guia da Via Rápida' });
  for (const path of [`/api/draws/${draw.id}/numbers`, `/api/infoproducts/${product.id}/open-draw?include=numbers`, '/api/config']) {
    clock.t += 2000; // a fresh cache
    const first = await get(path);
    expect(first.status).toBe(200);
    expect(first.lane).toBe(false);
    const second = await get(path);
    expect(second.lane).toBe(true);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(stableHeaders(second.headers)).toEqual(stableHeaders(first.headers));
    // helmet's headers come along
    expect(second.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(second.headers.get('x-content-type-options')).toBe('nosniff');
    expect(second.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // a fresh request id each time, or the caller's well-formed one
    expect(second.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    const own = await get(path, { 'x-request-id': 'pedido-do-cliente-123' });
    expect(own.lane).toBe(true);
    expect(own.headers.get('x-request-id')).toBe('pedido-do-cliente-123');
  }
});

test('past half of the TTL, and after a write, Koa answers again (refresh-ahead and invalidation still work)', async () => {
  const { draw } = await makeProductWithDraw(t, { title: 'Guia da Meia-Vida' });
  const path = `/api/draws/${draw.id}/numbers`;
  clock.t += 2000;
  await get(path);
  expect((await get(path)).lane).toBe(true);
  clock.t += 600; // past half of the 1 s TTL
  expect((await get(path)).lane).toBe(false);

  // A hold through the API invalidates the draw: the next read is Koa's, with the new state.
  clock.t += 2000;
  await get(path);
  expect((await get(path)).lane).toBe(true);
  const u = await createUser(t);
  const res = await fetch(`${base}/api/reservations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${u.token}` },
    body: JSON.stringify({ draw_id: draw.id, numbers: [3] }),
  });
  expect(res.status).toBe(201);
  const after = await get(path);
  expect(after.lane).toBe(false);
  expect(JSON.parse(after.text).numbers.find((c: { n: number }) => c.n === 3).status).toBe('reserved');
  expect((await get(path)).lane).toBe(true);
});

test('CORS requests, conditional requests, other methods and unknown paths stay with Koa', async () => {
  const { draw } = await makeProductWithDraw(t, { title: 'Guia das Exceções' });
  const path = `/api/draws/${draw.id}/numbers`;
  clock.t += 2000;
  const first = await get(path);
  expect((await get(path)).lane).toBe(true);

  const cors = await get(path, { origin: 'https://parceiro.example' });
  expect(cors.lane).toBe(false);
  expect(cors.headers.get('access-control-allow-origin')).toBe('https://parceiro.example');

  // (fetch adds `cache-control: no-cache` beside If-None-Match, which forbids a 304: send max-age=0 as browsers do.)
  const conditional = await get(path, { 'if-none-match': first.headers.get('etag')!, 'cache-control': 'max-age=0' });
  expect(conditional.lane).toBe(false);
  expect(conditional.status).toBe(304);

  served.length = 0;
  const head = await fetch(base + path, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(served).toEqual([false]);

  const unknown = await get(`${path}?x=1`);
  expect(unknown.lane).toBe(false); // a URL Koa has not answered yet
  expect(unknown.status).toBe(200);
  const missing = await get('/api/draws/999999/numbers');
  expect(missing.lane).toBe(false);
  expect(missing.status).toBe(404);
  expect((await get('/api/draws/999999/numbers')).lane).toBe(false); // errors are never remembered
});
