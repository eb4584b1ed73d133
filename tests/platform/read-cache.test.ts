import { ReadCache, toCachedJson, type Built } from '../../src/platform/read-cache';

/**
 * The public-read cache on its own, with a hand-driven clock: single flight,
 * the ≤ 1 s lifetime, refresh ahead, invalidation (also of builds in flight),
 * errors never cached, bytes exactly JSON.stringify's.
 */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A build counting its calls; each call answers `{v: <call number>}` showing `drawIds`. */
function counter(drawIds: number[] = []) {
  const b = {
    calls: 0,
    build: async (): Promise<Built> => {
      b.calls++;
      return { body: { v: b.calls }, drawIds };
    },
  };
  return b;
}

const flush = () => new Promise((r) => setImmediate(r));

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

test('single flight: 100 concurrent misses of one key run one build and get the same bytes', async () => {
  const cache = new ReadCache({ now: clock().now });
  const gate = deferred<void>();
  let calls = 0;
  const build = async (): Promise<Built> => {
    calls++;
    await gate.promise;
    return { body: { items: [{ título: 'Prêmio', n: 1 }] }, drawIds: [7] };
  };
  const pending = Array.from({ length: 100 }, () => cache.get('k', build));
  gate.resolve();
  const answers = await Promise.all(pending);
  expect(calls).toBe(1);
  expect(new Set(answers).size).toBe(1);
  expect(answers[0].json).toBe(JSON.stringify({ items: [{ título: 'Prêmio', n: 1 }] }));
  // Other keys build on their own.
  await cache.get('other', build);
  expect(calls).toBe(2);
});

test('the serialized answer is exactly JSON.stringify of the body, with its UTF-8 bytes and a strong ETag', () => {
  const body = { a: 'ção', b: [1, null, { c: new Date(0) }], d: undefined };
  const c = toCachedJson(body);
  expect(c.json).toBe(JSON.stringify(body));
  expect(c.bytes.equals(Buffer.from(JSON.stringify(body), 'utf8'))).toBe(true);
  expect(c.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  expect(toCachedJson({ ...body }).etag).toBe(c.etag);
  expect(toCachedJson({ ...body, a: 'cao' }).etag).not.toBe(c.etag);
});

test('an answer lives at most the TTL (clamped to 1 s) from the start of its build', async () => {
  expect(new ReadCache({ ttlMs: 5_000 }).ttlMs).toBe(1_000);
  expect(new ReadCache().ttlMs).toBe(1_000);
  const c = clock();
  const cache = new ReadCache({ now: c.now });
  const b = counter();
  expect((await cache.get('k', b.build)).json).toBe('{"v":1}');
  c.t += 400;
  expect((await cache.get('k', b.build)).json).toBe('{"v":1}');
  expect(b.calls).toBe(1);
  // Past the TTL: a blocking rebuild, never the old answer.
  c.t += 600;
  expect((await cache.get('k', b.build)).json).toBe('{"v":2}');
  expect(b.calls).toBe(2);
});

test('ttlMs 0: no caching, concurrent misses still share one build', async () => {
  const cache = new ReadCache({ ttlMs: 0, now: clock().now });
  const b = counter();
  const [x, y] = await Promise.all([cache.get('k', b.build), cache.get('k', b.build)]);
  expect(x).toBe(y);
  expect(b.calls).toBe(1);
  await cache.get('k', b.build);
  expect(b.calls).toBe(2);
  expect(cache.size).toBe(0);
});

test('refresh ahead: past half the TTL a hit keeps the current answer and starts one background rebuild', async () => {
  const c = clock();
  const cache = new ReadCache({ now: c.now });
  const gate = deferred<void>();
  let calls = 0;
  const build = async (): Promise<Built> => {
    calls++;
    if (calls === 2) await gate.promise;
    return { body: { v: calls }, drawIds: [] };
  };
  await cache.get('k', build);
  c.t += 600;
  // The hits answer at once with the current answer; one rebuild only.
  expect((await cache.get('k', build)).json).toBe('{"v":1}');
  expect((await cache.get('k', build)).json).toBe('{"v":1}');
  expect(calls).toBe(2);
  gate.resolve();
  await flush();
  expect((await cache.get('k', build)).json).toBe('{"v":2}');
  // The new answer's age counts from its build's start (t0 + 600): it is gone at t0 + 1600.
  c.t += 399;
  expect((await cache.get('k', build)).json).toBe('{"v":2}');
  expect(calls).toBe(2);
  c.t += 601;
  expect((await cache.get('k', build)).json).toBe('{"v":3}');
});

test('invalidateDraw drops the answers showing that draw, and every build in flight', async () => {
  const cache = new ReadCache({ now: clock().now });
  const a = counter([1, 2]);
  const b = counter([3]);
  const none = counter([]);
  await cache.get('a', a.build);
  await cache.get('b', b.build);
  await cache.get('none', none.build);
  cache.invalidateDraw(2);
  await cache.get('a', a.build);
  await cache.get('b', b.build);
  await cache.get('none', none.build);
  expect([a.calls, b.calls, none.calls]).toEqual([2, 1, 1]);

  // A build in flight when a write lands may have read the old rows: it is dropped,
  // and whoever asks after the write gets a new build.
  const gate = deferred<void>();
  let calls = 0;
  const slow = async (): Promise<Built> => {
    const mine = ++calls;
    if (mine === 1) await gate.promise;
    return { body: { build: mine }, drawIds: [] };
  };
  const before = cache.get('slow', slow);
  cache.invalidateDraw(99);
  const after = cache.get('slow', slow);
  expect(calls).toBe(2);
  gate.resolve();
  expect((await before).json).toBe('{"build":1}');
  expect((await after).json).toBe('{"build":2}');
  expect((await cache.get('slow', slow)).json).toBe('{"build":2}');
});

test('a background rebuild started before an invalidation never lands', async () => {
  const c = clock();
  const cache = new ReadCache({ now: c.now });
  const gate = deferred<void>();
  let calls = 0;
  const build = async (): Promise<Built> => {
    calls++;
    if (calls === 2) await gate.promise;
    return { body: { v: calls }, drawIds: [5] };
  };
  await cache.get('k', build);
  c.t += 700;
  await cache.get('k', build); // starts rebuild #2 (held)
  cache.invalidateAll();
  expect((await cache.get('k', build)).json).toBe('{"v":3}');
  gate.resolve();
  await flush();
  expect((await cache.get('k', build)).json).toBe('{"v":3}');
});

test('invalidateAll drops everything', async () => {
  const cache = new ReadCache({ now: clock().now });
  const a = counter([1]);
  const b = counter([]);
  await cache.get('a', a.build);
  await cache.get('b', b.build);
  cache.invalidateAll();
  expect(cache.size).toBe(0);
  await cache.get('a', a.build);
  await cache.get('b', b.build);
  expect([a.calls, b.calls]).toEqual([2, 2]);
});

test('errors are shared by the concurrent callers but never cached', async () => {
  const cache = new ReadCache({ now: clock().now });
  let calls = 0;
  const failing = async (): Promise<Built> => {
    calls++;
    throw new Error('not found');
  };
  const results = await Promise.allSettled([cache.get('k', failing), cache.get('k', failing)]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(calls).toBe(1);
  await expect(cache.get('k', failing)).rejects.toThrow('not found');
  expect(calls).toBe(2);
  expect(cache.size).toBe(0);
});

test('the number of entries is bounded (expired first, then the oldest)', async () => {
  const c = clock();
  const cache = new ReadCache({ now: c.now, maxEntries: 3 });
  const b = counter();
  for (const k of ['a', 'b', 'c', 'd']) await cache.get(k, b.build);
  expect(cache.size).toBe(3);
  await cache.get('b', b.build);
  expect(b.calls).toBe(4); // 'b' is still there
  await cache.get('a', b.build);
  expect(b.calls).toBe(5); // 'a' (the oldest) was evicted
});

test('memory: expired answers are swept once per TTL, and a byte cap drops the oldest', async () => {
  const c = clock();
  const cache = new ReadCache({ now: c.now });
  const b = counter();
  for (const k of ['a', 'b', 'c']) await cache.get(k, b.build);
  expect(cache.size).toBe(3);
  expect(cache.heldBytes).toBe(3 * ('{"v":1}'.length * 3));
  c.t += 1_000;
  await cache.get('d', b.build);
  expect(cache.size).toBe(1);
  expect(cache.heldBytes).toBe('{"v":4}'.length * 3);

  const big = { build: async (): Promise<Built> => ({ body: { pad: 'x'.repeat(100) }, drawIds: [] }) };
  const capped = new ReadCache({ now: c.now, maxBytes: 1_000 });
  for (const k of ['1', '2', '3', '4', '5']) await capped.get(k, big.build);
  // Each answer holds 111 bytes + 111 UTF-16 characters (333): three fit in 1000.
  expect(capped.size).toBe(3);
  expect(capped.heldBytes).toBeLessThanOrEqual(1_000);
  capped.invalidateAll();
  expect(capped.heldBytes).toBe(0);
});
