import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/eventually';
import { createServices, type Services } from '../../src/services';
import { createApp } from '../../src/http';
import { writeAppConfig } from '../../src/platform/app-config';
import { ReadCache } from '../../src/platform/read-cache';
import { grant, makeCategory, makeProduct, makeProductWithDraw, range, sellDirectly } from '../draws/fixtures';

/**
 * Public reads through the read cache (src/platform/read-cache.ts), over HTTP:
 *
 * - `app`: a second app on the same database whose cache runs on a clock the
 *   test moves by hand, so "still cached" and "expired" are exact, not timed;
 * - `t`: the usual test app (real clock), which plays "another process" (its
 *   writes invalidate its own cache only, like the CLI or another web process).
 */
let t: TestContext;
let services: Services;
let server: http.Server;
let base: string;
const clock = { t: 1_000_000, now: () => clock.t };

beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: 'true' } });
  services = createServices({ config: t.services.config, readCache: new ReadCache({ now: clock.now }) });
  server = http.createServer(createApp(services, { serveWeb: false }).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await services.close();
  await t.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { headers });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null, headers: res.headers };
}
async function post(path: string, token: string, body: unknown) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
/** SQL statements the app under test runs while `fn` runs (knex 'query' events). */
async function countQueries(fn: () => Promise<unknown>) {
  let n = 0;
  const onQuery = () => n++;
  services.db.on('query', onQuery);
  try {
    await fn();
  } finally {
    services.db.off('query', onQuery);
  }
  return n;
}

describe('answers', () => {
  test('every public read answers the uncached serialization byte for byte, then the same bytes from the cache', async () => {
    const cat = await makeCategory(t, { slug: 'bytes', name: 'Séries' });
    const { product, draw } = await makeProductWithDraw(
      t,
      { category_id: cat.id, sku: 'BYTES-1', title: 'Guia Prático' },
      { total_numbers: 12 },
    );
    await makeProductWithDraw(t, { category_id: cat.id });
    const pending = await makeProduct(t, { category_id: cat.id });
    const buyer = await createUser(t, { name: 'Ângela Müller' });
    await sellDirectly(t, draw.id, buyer.user.id, [1, 2]);
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    services.readCache.invalidateAll();

    const c = services.catalogue;
    const d = services.draws;
    const reads: Array<[string, () => Promise<unknown>]> = [
      [
        '/api/infoproducts?category=bytes&status=open&limit=12',
        async () => ({ items: await c.list({ category: 'bytes', status: 'open', limit: '12' }) }),
      ],
      [
        '/api/infoproducts?category=BYTES&limit=200&include=numbers',
        async () => ({ items: await c.list({ category: 'bytes', limit: '200', include: 'numbers' }) }),
      ],
      ['/api/infoproducts/sections?onlyOpen=1', () => c.sections({ onlyOpen: '1' })],
      ['/api/infoproducts/sections', () => c.sections({})],
      [`/api/infoproducts/${product.sku}`, () => c.detail(product.sku!)],
      [`/api/infoproducts/${product.id}/open-draw`, () => c.openDraw(String(product.id), false)],
      [`/api/infoproducts/${product.sku}/open-draw?include=numbers`, () => c.openDraw(product.sku!, true)],
      [`/api/infoproducts/${pending.sku}/open-draw?include=numbers`, () => c.openDraw(pending.sku!, true)],
      [`/api/draws?infoproduct_id=${product.id}`, async () => ({ items: await d.list({ infoproduct_id: String(product.id) }) })],
      [`/api/draws/${draw.id}`, () => d.get(draw.id)],
      [`/api/draws/${draw.id}/numbers`, () => d.board(draw.id)],
      [`/api/numbers?draw_id=${draw.id}`, () => d.board(draw.id)],
      ['/api/config', () => c.publicConfig()],
    ];
    const reader = await createUser(t);
    for (const [path, uncached] of reads) {
      const expected = JSON.stringify(await uncached());
      const miss = await get(path);
      expect({ path, status: miss.status }).toEqual({ path, status: 200 });
      expect(miss.text).toBe(expected);
      expect(miss.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(miss.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
      const etag = miss.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(miss.headers.get('cache-control')).toBe(path.includes('/sections') ? 'no-store' : 'no-cache');
      // Served again from the cache: the same bytes, the same ETag.
      const hit = await get(path);
      expect(hit.text).toBe(expected);
      expect(hit.headers.get('etag')).toBe(etag);
      // The same answer for a signed-in caller: nothing in it depends on who asks.
      expect((await get(path, { authorization: `Bearer ${reader.token}` })).text).toBe(expected);
      // A client holding these bytes gets a 304 without a body. (fetch adds `cache-control:
      // no-cache` to a request carrying If-None-Match, which forbids a 304; a browser revalidating
      // its copy does not.)
      const revalidated = await get(path, { 'if-none-match': etag!, 'cache-control': 'max-age=0' });
      expect(revalidated.status).toBe(304);
      expect(revalidated.text).toBe('');
    }
    // Nothing private in them.
    const board = await get(`/api/draws/${draw.id}/numbers`);
    expect(board.body.numbers[1]).toEqual({ n: 1, status: 'sold', initials: 'AM' });
    expect(board.text).not.toContain('Müller');
    await writeAppConfig(t.services.db, { main_infoproduct_id: null });
    services.readCache.invalidateAll();
  });

  test('other methods on public read paths still answer 405 with Allow', async () => {
    for (const path of ['/api/config', '/api/infoproducts', '/api/draws/1/numbers']) {
      const res = await fetch(base + path, { method: 'DELETE' });
      expect({ path, status: res.status }).toEqual({ path, status: 405 });
      expect(res.headers.get('allow')).toContain('GET');
    }
  });

  test('errors are answered as before and not cached', async () => {
    const before = await get('/api/infoproducts/NAO-EXISTE-AINDA/open-draw');
    expect(before.status).toBe(404);
    expect(before.body).toEqual({ error: 'infoproduct_not_found', message: 'E-book não encontrado.' });
    await makeProduct(t, { sku: 'NAO-EXISTE-AINDA' });
    expect((await get('/api/infoproducts/NAO-EXISTE-AINDA/open-draw')).status).toBe(200);
    expect((await get('/api/draws/abc')).status).toBe(400);
    expect((await get('/api/infoproducts?limit=0')).body).toMatchObject({ error: 'validation_error' });
  });
});

describe('single flight and queries', () => {
  test('concurrent misses of one read run one build; a miss costs a fixed handful of queries', async () => {
    const cat = await makeCategory(t, { slug: 'muitos' });
    const made = [];
    for (let i = 0; i < 12; i++) made.push(await makeProductWithDraw(t, { category_id: cat.id }, { total_numbers: 10 }));
    const { product, draw } = made[0];
    const signedIn = await createUser(t);
    const paths = [
      ['/api/infoproducts?category=muitos&status=open&limit=12&include=numbers', 5],
      ['/api/infoproducts?category=muitos&status=open&limit=12', 4],
      ['/api/infoproducts/sections?onlyOpen=1', 5],
      [`/api/infoproducts/${product.sku}/open-draw?include=numbers`, 5],
      [`/api/infoproducts/${product.sku}/open-draw`, 4],
      [`/api/draws/${draw.id}`, 4],
      [`/api/draws/${draw.id}/numbers`, 2],
      ['/api/config', 2],
    ] as const;
    for (const [path, most] of paths) {
      services.readCache.invalidateAll();
      const one = await countQueries(() => get(path));
      // However many products: no query per product or per draw.
      expect({ path, within: one <= most }).toEqual({ path, within: true });
      services.readCache.invalidateAll();
      const answers: string[] = [];
      const many = await countQueries(async () => {
        const rs = await Promise.all(range(0, 40).map(() => get(path)));
        for (const r of rs) answers.push(r.text);
      });
      expect({ path, queries: many }).toEqual({ path, queries: one });
      expect(new Set(answers).size).toBe(1);
      // Hits: no query at all, also for a signed-in caller (public reads skip the session lookup).
      expect(await countQueries(() => Promise.all(range(0, 20).map(() => get(path))))).toBe(0);
      expect(await countQueries(() => Promise.all(range(0, 5).map(() => get(path, { authorization: `Bearer ${signedIn.token}` }))))).toBe(
        0,
      );
    }
  });
});

describe('writes in this process show at once', () => {
  test('holds, sales and releases change the board, the draw, open-draw, lists and sections immediately', async () => {
    const cat = await makeCategory(t, { slug: 'ao-vivo' });
    const { product, draw } = await makeProductWithDraw(t, { category_id: cat.id }, { total_numbers: 10, max_per_user: 0 });
    const u = await createUser(t, { name: 'Rita Lee Jones' });
    await grant(t, u.user.id, product.id, 5);
    services.readCache.invalidateAll();

    const views = async () => {
      const [board, one, od, list, sections] = await Promise.all([
        get(`/api/draws/${draw.id}/numbers`),
        get(`/api/draws/${draw.id}`),
        get(`/api/infoproducts/${product.sku}/open-draw?include=numbers`),
        get('/api/infoproducts?category=ao-vivo&status=open'),
        get('/api/infoproducts/sections?onlyOpen=1'),
      ]);
      const section = sections.body.find((s: any) => s.slug === 'ao-vivo');
      return {
        board: board.body.numbers.map((c: any) => c.status[0]).join(''),
        numbers: od.body.numbers.map((c: any) => c.status[0]).join(''),
        counts: [one.body.counts, od.body.draw.counts, list.body.items[0].draw.counts, section.items[0].draw.counts],
        initials: board.body.numbers[3].initials,
      };
    };
    const counts = (reserved: number, sold: number) => Array(4).fill(expect.objectContaining({ reserved, sold }));
    expect(await views()).toEqual({ board: 'aaaaaaaaaa', numbers: 'aaaaaaaaaa', counts: counts(0, 0), initials: null });

    // The clock never moves in this test: only invalidation can refresh an answer.
    const hold = await post('/api/reservations', u.token, { draw_id: draw.id, numbers: [3, 4] });
    expect(hold.status).toBe(201);
    expect(await views()).toEqual({ board: 'aaarraaaaa', numbers: 'aaarraaaaa', counts: counts(2, 0), initials: null });

    const sold = await post('/api/vouchers/consume', u.token, { reservationId: hold.body.reservationId, numbers: [3, 4] });
    expect(sold.status).toBe(200);
    expect(await views()).toEqual({ board: 'aaassaaaaa', numbers: 'aaassaaaaa', counts: counts(0, 2), initials: 'RLJ' });

    const other = await post('/api/reservations', u.token, { draw_id: draw.id, numbers: [7] });
    expect(other.status).toBe(201);
    expect((await views()).board).toBe('aaassaaraa');
    await services
      .db('reservations')
      .where({ id: other.body.reservationId })
      .update({ expires_at: services.db.raw(`now() - interval '1 second'`) });
    expect(await services.reservations.expire(other.body.reservationId)).toBe(true);
    expect(await views()).toEqual({ board: 'aaassaaaaa', numbers: 'aaassaaaaa', counts: counts(0, 2), initials: 'RLJ' });
  });

  test('a sell-out (draw closed, successor opened) and ensure-open-draw change config, lists and open-draw immediately', async () => {
    const { product, draw } = await makeProductWithDraw(t, { sku: 'VIRA-RODADA' }, { total_numbers: 3, max_per_user: 0 });
    const filler = await createUser(t);
    await sellDirectly(t, draw.id, filler.user.id, [0, 1]);
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    services.readCache.invalidateAll();
    const u = await createUser(t);
    await grant(t, u.user.id, product.id, 1);

    expect((await get('/api/config')).body.current_draw_id).toBe(draw.id);
    expect((await get(`/api/draws?infoproduct_id=${product.id}&status=closed`)).body.items).toEqual([]);
    expect((await get(`/api/infoproducts/${product.sku}/open-draw`)).body.draw.id).toBe(draw.id);

    const hold = await post('/api/reservations', u.token, { draw_id: draw.id, numbers: [2] });
    const sold = await post('/api/vouchers/consume', u.token, { reservationId: hold.body.reservationId, numbers: [2] });
    expect(sold.body).toMatchObject({ sold_out: true, next_draw_id: expect.any(Number) });
    const next = sold.body.next_draw_id;
    expect((await get('/api/config')).body.current_draw_id).toBe(next);
    expect((await get(`/api/draws?infoproduct_id=${product.id}&status=closed`)).body.items.map((d: any) => d.id)).toEqual([draw.id]);
    expect((await get(`/api/infoproducts/${product.sku}/open-draw`)).body.draw.id).toBe(next);
    expect((await get(`/api/draws/${draw.id}/numbers`)).body.status).toBe('closed');

    // A product without a draw answers "pending" until ensure-open-draw opens one.
    const fresh = await makeProduct(t, { sku: 'SEM-RODADA' });
    services.readCache.invalidateAll();
    expect((await get(`/api/infoproducts/${fresh.sku}/open-draw`)).body.draw.status).toBe('pending');
    const opened = await post(`/api/infoproducts/${fresh.sku}/ensure-open-draw`, u.token, {});
    expect(opened.status).toBe(200);
    expect((await get(`/api/infoproducts/${fresh.sku}/open-draw`)).body.draw).toMatchObject({ id: opened.body.draw_id, status: 'open' });
    await writeAppConfig(t.services.db, { main_infoproduct_id: null });
    services.readCache.invalidateAll();
  });

  test('invalidation waits for the commit: a rolled-back transaction leaves the cache alone', async () => {
    await get('/api/config');
    const size = services.readCache.size;
    expect(size).toBeGreaterThan(0);
    await expect(
      services.db.transaction(async (trx) => {
        services.readCache.invalidateAllAfterCommit(trx);
        await trx('app_config').select('key');
        throw new Error('desfeito');
      }),
    ).rejects.toThrow('desfeito');
    expect(services.readCache.size).toBe(size);
    await services.db.transaction(async (trx) => {
      services.readCache.invalidateAllAfterCommit(trx);
      await trx('app_config').select('key');
      // Not before the commit.
      expect(services.readCache.size).toBe(size);
    });
    expect(services.readCache.size).toBe(0);
  });
});

describe('writes from another process, when the invalidation bus is silent', () => {
  // Every process publishes its invalidations through Redis (platform/cache-bus.ts; tested in
  // tests/platform/multi-process.test.ts). Here this file's app stops listening, as when the
  // pub/sub connection is lost: the 1 s bound of the cache is then what still holds.
  beforeAll(() => services.cacheBus.close());

  test('are seen once the answer is 1 s old, not before (hand-driven clock)', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { total_numbers: 5 });
    const u = await createUser(t);
    services.readCache.invalidateAll();
    const status2 = async () => (await get(`/api/numbers?draw_id=${draw.id}`)).body.numbers[2].status;
    expect(await status2()).toBe('available');
    // The other app holds number 2; its invalidation does not reach this process.
    expect((await t.api('POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [2] } })).status).toBe(201);
    expect(await status2()).toBe('available');
    clock.t += 400;
    expect(await status2()).toBe('available');
    // 1 s after the cached answer's build started, it is never served again.
    clock.t += 600;
    expect(await status2()).toBe('reserved');
  });

  test('with the real clock: another process sees a write within a second or so', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { total_numbers: 5 });
    const u = await createUser(t);
    // `t` reads (real clock), this file's app writes (its invalidation stays in its own cache).
    expect((await t.api('GET', `/api/draws/${draw.id}/numbers`)).body.numbers[4].status).toBe('available');
    const hold = await post('/api/reservations', u.token, { draw_id: draw.id, numbers: [4] });
    expect(hold.status).toBe(201);
    // The 1 s bound itself is asserted on a frozen clock above; here only that it shows up (a
    // generous ceiling for a loaded machine, no elapsed time asserted).
    await eventually(
      async () => (await t.api('GET', `/api/draws/${draw.id}/numbers`)).body.numbers[4].status === 'reserved',
      'the other app to see the hold',
      30_000,
      20,
    );
  });
});
