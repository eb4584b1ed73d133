import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { registerJobHandlers } from '../../jobs/registry';
import { loadConfig, ConfigError } from '../../src/platform/config';
import { SCHEDULES } from '../../src/platform/queue';
import { buyEbooks, eventually, makeProductWithDraw, sandboxBank } from '../payments/fixtures';
import { startTestWorker } from '../helpers/worker';

/**
 * The partner-store push (coupon.sync job, webhook adapter) against a local HTTP fake
 * that fails the first attempts: signed JSON, retried with backoff, one idempotency key
 * per ledger version, nothing sent again while the ledger does not change.
 */
const SECRET = 'partner-secret-0123456789';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

function startFakePartner() {
  const received: Received[] = [];
  let failuresLeft = 0;
  let failStatus = 503;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(failStatus, { 'content-type': 'application/json' }).end('{"error":"busy"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return {
    received,
    failNext(n: number, status = 503) {
      failuresLeft = n;
      failStatus = status;
    },
    async listen() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/coupons`;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const fake = startFakePartner();
let t: TestContext;
beforeAll(async () => {
  const url = await fake.listen();
  t = await createTestContext({
    env: { RATE_LIMIT_DISABLED: '1', COUPON_ADAPTER: 'webhook', COUPON_WEBHOOK_URL: url, COUPON_WEBHOOK_SECRET: SECRET },
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function approvedPurchase(token: string, quantity: number) {
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, token, product.id, quantity, 500);
  await sandboxBank(t, p.paymentId, 'approved');
  await t.services.payments.poll(p.paymentId);
  return p.paymentId;
}

function verify(r: Received) {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['x-cotaverde-signature']));
  expect(m).not.toBeNull();
  const expected = createHmac('sha256', SECRET).update(`${m![1]}.${r.body}`).digest('hex');
  expect(m![2]).toBe(expected);
  expect(r.headers['content-type']).toBe('application/json');
}

const maxLedgerId = async (userId: number) =>
  (await t.services.db('coupon_ledger').where({ user_id: userId }).max<{ m: number }[]>({ m: 'id' }))[0].m;

test('the job pushes a changed balance, retrying through failures under one idempotency key, and only once per ledger version', async () => {
  const u = await createUser(t);
  await approvedPurchase(u.token, 2);
  fake.received.length = 0;
  fake.failNext(2);
  const run = registerJobHandlers(t.services)['coupon.sync'];
  const summary = (await run({ userId: u.user.id }, undefined as never)) as { pushed: number; push_failed: number };
  expect(summary).toMatchObject({ pushed: 1, push_failed: 0 });
  expect(fake.received).toHaveLength(3);
  const version = await maxLedgerId(u.user.id);
  for (const r of fake.received) {
    verify(r);
    expect(r.headers['idempotency-key']).toBe(`coupon-${u.user.id}-${version}`);
  }
  const code = (await t.services.db('users').where({ id: u.user.id }).first()).coupon_code;
  const acct = await t.services.db('coupon_accounts').where({ user_id: u.user.id }).first();
  expect(JSON.parse(fake.received[2].body)).toEqual({
    code,
    cents: 1000,
    valid_until: new Date(new Date(acct.last_paid_payment_at).getTime() + 180 * 86_400_000).toISOString(),
    user_id: u.user.id,
  });
  expect(acct.pushed_ledger_id).toBe(version);

  // Nothing changed: nothing sent.
  await run({ userId: u.user.id }, undefined as never);
  await t.services.coupons.runJob({});
  expect(fake.received.filter((r) => JSON.parse(r.body).user_id === u.user.id)).toHaveLength(3);

  // A new ledger entry: a new version, a new key.
  await approvedPurchase(u.token, 1);
  fake.received.length = 0;
  await t.services.coupons.runJob({});
  const mine = fake.received.filter((r) => JSON.parse(r.body).user_id === u.user.id);
  expect(mine).toHaveLength(1);
  expect(mine[0].headers['idempotency-key']).toBe(`coupon-${u.user.id}-${await maxLedgerId(u.user.id)}`);
  expect(JSON.parse(mine[0].body).cents).toBe(1500);
});

test('a partner that refuses (4xx) is not hammered: the push gives up for this run and the next run delivers', async () => {
  const u = await createUser(t);
  await approvedPurchase(u.token, 1);
  fake.received.length = 0;
  fake.failNext(1, 400);
  const r1 = await t.services.coupons.runJob({ userId: u.user.id });
  expect(r1).toMatchObject({ pushed: 0, push_failed: 1 });
  expect(fake.received).toHaveLength(1);
  expect((await t.services.db('coupon_accounts').where({ user_id: u.user.id }).first()).pushed_ledger_id).toBeNull();
  const r2 = await t.services.coupons.runJob({ userId: u.user.id });
  expect(r2).toMatchObject({ pushed: 1, push_failed: 0 });
  expect(fake.received).toHaveLength(2);
  expect(fake.received[1].headers['idempotency-key']).toBe(fake.received[0].headers['idempotency-key']);
});

test('POST /api/coupons/sync queues a push job for the caller when the partner is behind', async () => {
  const u = await createUser(t);
  await approvedPurchase(u.token, 1);
  const r = await t.api('POST', '/api/coupons/sync', { token: u.token });
  expect(r.status).toBe(200);
  const job = await t.services.queue.raw.getJob(`coupon-sync-${u.user.id}`);
  expect(job?.name).toBe('coupon.sync');
  expect(job?.data).toEqual({ userId: u.user.id });
});

test('end to end: the worker runs the queued coupon.sync job and the partner receives the balance', async () => {
  const running = await startTestWorker(t, { schedules: [] });
  try {
    const u = await createUser(t);
    await approvedPurchase(u.token, 3);
    fake.received.length = 0;
    const r = await t.api('POST', '/api/me/coupons/sync', { token: u.token });
    expect(r.status).toBe(200);
    const got = await eventually(
      async () => fake.received.find((x) => JSON.parse(x.body).user_id === u.user.id),
      'the partner to receive the push',
    );
    verify(got);
    expect(JSON.parse(got.body)).toMatchObject({ cents: 1500, user_id: u.user.id });
    await eventually(
      async () => (await t.services.db('coupon_accounts').where({ user_id: u.user.id }).first()).pushed_ledger_id != null,
      'the push to be recorded',
    );
  } finally {
    await running.close();
  }
});

test('coupon.sync runs hourly, and the webhook adapter refuses to start without URL and secret', () => {
  expect(SCHEDULES).toContainEqual({ id: 'coupon-sync', name: 'coupon.sync', everyMs: 3_600_000 });
  const base = { NODE_ENV: 'test', DATABASE_URL: 'postgres://x/y', REDIS_URL: 'redis://x' };
  expect(loadConfig(base).coupons.adapter).toBe('none');
  expect(() => loadConfig({ ...base, COUPON_ADAPTER: 'webhook' })).toThrow(ConfigError);
  expect(() =>
    loadConfig({ ...base, COUPON_ADAPTER: 'webhook', COUPON_WEBHOOK_URL: 'http://partner.test/x', COUPON_WEBHOOK_SECRET: 'short' }),
  ).toThrow(/COUPON_WEBHOOK_SECRET/);
  expect(() => loadConfig({ ...base, COUPON_ADAPTER: 'ftp' })).toThrow(ConfigError);
  const ok = loadConfig({ ...base, COUPON_ADAPTER: 'webhook', COUPON_WEBHOOK_URL: 'http://partner.test/x', COUPON_WEBHOOK_SECRET: SECRET });
  expect(ok.coupons).toEqual({ adapter: 'webhook', webhookUrl: 'http://partner.test/x', webhookSecret: SECRET });
});
