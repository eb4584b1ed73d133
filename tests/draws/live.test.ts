import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { openSse, type SseStream } from '../helpers/sse';
import { grant, makeDraw } from './fixtures';
import { makeProductWithDraw, reserve } from '../payments/fixtures';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/ports';
import { TcpProxy } from '../helpers/tcp-proxy';

/**
 * GET /api/draws/{id}/events (draws/live.ts): the board on connect, every change of the numbers
 * and counts, the close with its successor, Last-Event-ID resumes (or reloads), heartbeats, the
 * per-process cap and bad ids. The cross-process path is in tests/platform/multi-process.test.ts.
 */
let t: TestContext;
let capped: TestContext;
let perClient: TestContext;
const open: SseStream[] = [];

async function stream(ctx: TestContext, drawId: number | string, headers: Record<string, string> = {}, query = '') {
  const s = await openSse(`${ctx.url}/api/draws/${drawId}/events${query}`, headers);
  open.push(s);
  return s;
}

beforeAll(async () => {
  t = await createTestContext({ env: { LIVE_HEARTBEAT_MS: '200' } });
  capped = await createTestContext({ env: { LIVE_MAX_STREAMS: '1' } });
  perClient = await createTestContext({ env: { LIVE_MAX_STREAMS_PER_CLIENT: '3' } });
});

afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

afterAll(async () => {
  await t.close();
  await capped.close();
  await perClient.close();
});

const cell = (e: { data: { numbers: Array<{ n: number; status: string; initials: string | null }> } }, n: number) =>
  e.data.numbers.find((x) => x.n === n);

test('a new stream starts with the whole board; a reservation, a sale and a release follow as events with their counts', async () => {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const u = await createUser(t, { name: 'Ana Beatriz Costa' });
  await grant(t, u.user.id, product.id, 2);
  const s = await stream(t, draw.id);
  expect(s.status).toBe(200);
  expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(s.headers.get('cache-control')).toContain('no-cache');
  const board = await s.waitFor((e) => e.event === 'board', 'the board event');
  expect(board.id).toMatch(/^\d+-\d+$/);
  expect(board.data).toMatchObject({
    draw_id: draw.id,
    status: 'open',
    successor_id: null,
    total_numbers: 100,
    counts: { available: 100, reserved: 0, sold: 0, taken: 0 },
  });
  expect(board.data.numbers).toHaveLength(100);

  const hold = await reserve(t, u.token, draw.id, [7]);
  const other = await reserve(t, u.token, draw.id, [8]);
  await s.waitFor((e) => e.event === 'numbers' && cell(e, 8)?.status === 'reserved', 'the second reservation');
  const held = await s.waitFor((e) => e.event === 'numbers' && cell(e, 7)?.status === 'reserved', 'the reservation event');
  expect(held.data.numbers).toContainEqual({ n: 7, status: 'reserved', initials: null });
  expect(s.events.at(-1)!.data.counts).toEqual({ available: 98, reserved: 2, sold: 0, taken: 0 });

  const sale = await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: hold.id, numbers: [7] } });
  expect(`${sale.status} ${sale.text}`).toMatch(/^200/);
  const sold = await s.waitFor((e) => e.event === 'numbers' && cell(e, 7)?.status === 'sold', 'the sale event');
  expect(cell(sold, 7)).toEqual({ n: 7, status: 'sold', initials: 'ABC' });

  // The other hold is released (its time is up): number 8 is available again.
  await t.services
    .db('reservations')
    .where({ id: other.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  await t.services.reservations.expire(other.id);
  const released = await s.waitFor((e) => e.event === 'numbers' && cell(e, 8)?.status === 'available', 'the release event');
  expect(released.data.counts).toEqual({ available: 99, reserved: 0, sold: 1, taken: 0 });
  // Ids only grow.
  const ids = s.events.filter((e) => e.id).map((e) => e.id!);
  expect(
    [...ids].sort((a, b) =>
      a.split('-')[0] === b.split('-')[0]
        ? Number(a.split('-')[1]) - Number(b.split('-')[1])
        : Number(a.split('-')[0]) - Number(b.split('-')[0]),
    ),
  ).toEqual(ids);
});

test('a sell-out pushes the close and the successor opening', async () => {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 }, { total_numbers: 2 });
  const u = await createUser(t);
  await grant(t, u.user.id, product.id, 2);
  const s = await stream(t, draw.id);
  await s.waitFor((e) => e.event === 'board', 'the board event');
  const first = await firstNumber(draw.id);
  const hold = await reserve(t, u.token, draw.id, [first, first + 1]);
  expect(
    (await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: hold.id, numbers: hold.numbers } })).status,
  ).toBe(200);
  const closed = await s.waitFor((e) => e.event === 'draw' && e.data.status === 'closed', 'the close event');
  const successor = await t.services.db('draws').where({ predecessor_id: draw.id }).first('id');
  expect(successor).toBeTruthy();
  expect(closed.data).toEqual({ draw_id: draw.id, status: 'closed', successor_id: successor.id });
});

async function firstNumber(drawId: number): Promise<number> {
  const row = await t.services.db('draw_numbers').where({ draw_id: drawId }).min<{ m: number }[]>({ m: 'n' });
  return Number(row[0].m);
}

test('Last-Event-ID resumes without a gap: the events missed while away, and nothing twice', async () => {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const u = await createUser(t);
  await grant(t, u.user.id, product.id, 3);
  const s1 = await stream(t, draw.id);
  await reserve(t, u.token, draw.id, [11]);
  const seen = await s1.waitFor((e) => e.event === 'numbers' && cell(e, 11)?.status === 'reserved', 'number 11 held');
  s1.close();
  // Two changes while the client is away.
  await reserve(t, u.token, draw.id, [12]);
  await reserve(t, u.token, draw.id, [13]);
  // Wait until both are recorded (another stream on the draw records them).
  const watcher = await stream(t, draw.id);
  await watcher.waitFor((e) => e.event === 'board' && cell(e, 13)?.status === 'reserved', 'number 13 recorded');

  const s2 = await stream(t, draw.id, { 'last-event-id': seen.id! });
  await s2.waitFor((e) => e.event === 'numbers' && e.data.numbers.some((x: { n: number }) => x.n === 13), 'the missed events');
  expect(s2.events.some((e) => e.event === 'board' || e.event === 'reload')).toBe(false);
  const resent = s2.events.flatMap((e) => e.data.numbers.map((x: { n: number; status: string }) => `${x.n}:${x.status}`));
  expect(resent).toEqual(expect.arrayContaining(['12:reserved', '13:reserved']));
  expect(resent).not.toContain('11:reserved'); // already seen: not sent again

  // The same resume through the query parameter (clients that cannot set the header).
  const s3 = await stream(t, draw.id, {}, `?last_event_id=${encodeURIComponent(seen.id!)}`);
  await s3.waitFor((e) => e.event === 'numbers' && e.data.numbers.some((x: { n: number }) => x.n === 13), 'the missed events by query');
});

test('an id the stream no longer holds (or never held) tells the client to reload, then sends the board', async () => {
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  for (const id of ['1-0', 'garbage', '99999999999999-0']) {
    const s = await stream(t, draw.id, { 'last-event-id': id });
    expect(s.status).toBe(200);
    const reload = await s.waitFor((e) => e.event === 'reload', `the reload event for ${id}`);
    expect(reload.data).toEqual({ draw_id: draw.id, reason: 'gap' });
    const board = await s.waitFor((e) => e.event === 'board', 'the board after the reload');
    expect(board.data.numbers).toHaveLength(100);
    s.close();
  }
});

test('heartbeat comments keep an idle stream open', async () => {
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const s = await stream(t, draw.id);
  await s.waitFor((e) => e.event === 'board', 'the board');
  const { eventually } = await import('../helpers/eventually');
  await eventually(async () => s.comments.filter((c) => c === 'heartbeat').length >= 2, 'two heartbeats');
});

test('streams are counted and capped per process: beyond the cap a 503 with {error, message}; a closed stream frees its place', async () => {
  const draw = await makeDraw(capped);
  const s1 = await stream(capped, draw.id);
  await s1.waitFor((e) => e.event === 'board', 'the board');
  expect(capped.services.live.openStreams).toBe(1);
  const s2 = await stream(capped, draw.id);
  expect(s2.status).toBe(503);
  expect(s2.headers.get('retry-after')).toBe('30');
  expect(s2.body).toEqual({ error: 'too_many_streams', message: expect.stringMatching(/conexões ao vivo/) });
  s1.close();
  const { eventually } = await import('../helpers/eventually');
  await eventually(async () => capped.services.live.openStreams === 0, 'the closed stream to be counted out');
  const s3 = await stream(capped, draw.id);
  expect(s3.status).toBe(200);
});

test('bad ids answer 400 and unknown draws 404, as {error, message}, never a stream', async () => {
  for (const bad of ['abc', '0', '-3', '1.5', '99999999999999999999']) {
    const s = await stream(t, bad);
    expect(s.status).toBe(400);
    expect(s.body).toMatchObject({ error: expect.any(String), message: 'Sorteio inválido.' });
  }
  const missingOk = await makeDraw(t);
  const missing = await stream(t, 987654);
  expect(missing.status).toBe(404);
  expect(missing.body).toMatchObject({ error: 'draw_not_found', message: 'Sorteio não encontrado.' });
  const longId = await stream(t, missingOk.id, {}, `?last_event_id=${'9'.repeat(60)}`);
  expect(longId.status).toBe(400);
  expect(t.services.live.openStreams).toBe(0);
});

test('several draws on one stream (the home cards): a board per draw, then their changes, without ids; bad lists 400', async () => {
  const a = await makeProductWithDraw(t, { price_cents: 500 });
  const b = await makeProductWithDraw(t, { price_cents: 500 });
  const u = await createUser(t);
  await grant(t, u.user.id, b.product.id, 1);
  const s = await openSse(`${t.url}/api/draws/events?ids=${a.draw.id},${b.draw.id}`);
  open.push(s);
  expect(s.status).toBe(200);
  await s.waitFor((e) => e.event === 'board' && e.data.draw_id === a.draw.id, 'board A');
  await s.waitFor((e) => e.event === 'board' && e.data.draw_id === b.draw.id, 'board B');
  expect(t.services.live.openStreams).toBe(1);
  await reserve(t, u.token, b.draw.id, [5]);
  const ev = await s.waitFor((e) => e.event === 'numbers' && e.data.draw_id === b.draw.id, 'the change on B');
  expect(ev.data.numbers).toEqual([{ n: 5, status: 'reserved', initials: null }]);
  expect(s.events.every((e) => e.id === null)).toBe(true);
  for (const q of ['', '?ids=', '?ids=a,b', `?ids=${Array.from({ length: 13 }, (_, i) => i + 1).join(',')}`]) {
    const bad = await openSse(`${t.url}/api/draws/events${q}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  }
  const missing = await openSse(`${t.url}/api/draws/events?ids=${a.draw.id},987655`);
  expect(missing.status).toBe(404);
});

test("streams are capped per client address too: beyond it a 429 {error, message} with Retry-After, other clients still get in, a closed stream frees the client's place", async () => {
  expect(t.services.config.live.maxStreamsPerClient).toBe(20); // the default
  const draw = await makeDraw(perClient);
  // The test app trusts one proxy hop: the address is the last X-Forwarded-For entry, whatever the
  // client wrote to its left.
  const from = (ip: string, forged = '') => ({ 'x-forwarded-for': forged ? `${forged}, ${ip}` : ip });
  const mine = [];
  for (let i = 0; i < 3; i++) {
    const s = await stream(perClient, draw.id, from('203.0.113.7', `198.51.100.${i}`));
    expect(s.status).toBe(200);
    mine.push(s);
  }
  await Promise.all(mine.map((s) => s.waitFor((e) => e.event === 'board', 'the board')));
  expect(perClient.services.live.openStreamsOf('203.0.113.7')).toBe(3);

  const over = await stream(perClient, draw.id, from('203.0.113.7', '192.0.2.99'));
  expect(over.status).toBe(429);
  expect(over.headers.get('retry-after')).toBe('30');
  expect(over.body).toEqual({
    error: 'too_many_streams',
    message: 'Você já tem muitas conexões ao vivo abertas. Feche algumas abas; o quadro continua se atualizando a cada 15 segundos.',
  });
  // The several-draw stream counts against the same cap.
  const many = await openSse(`${perClient.url}/api/draws/events?ids=${draw.id}`, from('203.0.113.7'));
  open.push(many);
  expect(many.status).toBe(429);

  // Someone else is not locked out.
  const other = await stream(perClient, draw.id, from('203.0.113.8'));
  expect(other.status).toBe(200);
  await other.waitFor((e) => e.event === 'board', "the other client's board");

  // Closing one of the client's streams frees its place.
  mine[0].close();
  await eventually(async () => perClient.services.live.openStreamsOf('203.0.113.7') === 2, 'the closed stream to be counted out');
  const again = await stream(perClient, draw.id, from('203.0.113.7'));
  expect(again.status).toBe(200);
  await again.waitFor((e) => e.event === 'board', 'the board of the stream that took the freed place');
  expect(perClient.services.live.openStreamsOf('203.0.113.7')).toBe(3);
  expect(perClient.services.live.openStreams).toBe(4);
});

describe('a slow Redis (every answer 1.5 s late) behind the app', () => {
  let proxy: TcpProxy;
  let slow: TestContext;
  beforeAll(async () => {
    const redis = new URL(t.services.config.redisUrl);
    proxy = new TcpProxy(await freePort(), { host: redis.hostname, port: Number(redis.port) }, { replyDelayMs: 1500 });
    await proxy.start();
    redis.hostname = '127.0.0.1';
    redis.port = String(proxy.port);
    slow = await createTestContext({ env: { REDIS_URL: redis.toString() } });
  });
  afterAll(async () => {
    for (const s of open.splice(0)) s.close();
    if (!proxy.running) await proxy.start();
    await slow.close();
    await proxy.stop();
  });

  test('a burst of 150 streams opened at once: every one answers 200 and starts with the board; Redis really down still answers 503 at once', async () => {
    const draws = [await makeDraw(slow), await makeDraw(slow), await makeDraw(slow)];
    // Each viewer from its own address, so the per-client cap is not what is measured here.
    const burst = await Promise.all(
      Array.from({ length: 150 }, (_, i) => stream(slow, draws[i % 3].id, { 'x-forwarded-for': `10.1.${i >> 8}.${i & 255}` })),
    );
    expect(burst.map((s) => s.status).filter((st) => st !== 200)).toEqual([]);
    const boards = await Promise.all(
      burst.map((s) => s.waitFor((e) => e.event === 'board', 'the board of every stream of the burst', 60_000)),
    );
    expect(boards.map((b) => [b.data.draw_id, b.data.numbers.length])).toEqual(burst.map((_, i) => [draws[i % 3].id, 100]));
    expect(slow.services.live.openStreams).toBe(150);
    for (const s of open.splice(0)) s.close();
    await eventually(async () => slow.services.live.openStreams === 0, 'the burst to be closed');

    // Redis gone (not slow): the stream is refused at once with 503, as before.
    await proxy.stop();
    const refused = await eventually(async () => {
      const s = await stream(slow, draws[0].id);
      return s.status !== 200 ? s : (s.close(), null);
    }, 'a stream refused while Redis is gone');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body).toMatchObject({ error: 'live_unavailable', message: expect.stringMatching(/indisponíveis/) });

    // Back: streams open again by themselves.
    await proxy.start();
    const back = await eventually(
      async () => {
        const s = await stream(slow, draws[0].id);
        return s.status === 200 ? s : null;
      },
      'a stream once Redis is back',
      60_000,
    );
    await back.waitFor((e) => e.event === 'board', 'the board once Redis is back', 60_000);
  });
});
