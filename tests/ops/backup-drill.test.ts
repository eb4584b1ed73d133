import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createTestContext, createUser, type TestContext, serverQuery, serverUrl } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/ports';
import { PrivateRedis } from '../helpers/private-redis';
import { makeDraw, makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { reserve } from '../payments/fixtures';
import { autopayUser, mainSeries, openNextDraw } from '../autopay/fixtures';
import { createDb, type Db } from '../../src/platform/db';
import { loadConfig } from '../../src/platform/config';
import { createServices, type Services } from '../../src/services';
import { registerJobHandlers } from '../../jobs/registry';
import { QUEUE_NAME, SCHEDULES, startWorker, type RunningWorker } from '../../src/platform/queue';
import { schedulerSetKey } from '../../src/platform/heartbeat';
import { balancesOf, readBackupHeader, type BackupManifest } from '../../src/ops/backup';

/**
 * The restore drill (docs/DEPLOY.md "Backups"): a store with sales, a refund, a decided draw,
 * vouchers, coupons (cashback) and autopay; `cotaverde db backup` runs while purchases keep
 * going; `cotaverde db restore` loads it into a new database. The restored books are clean and
 * every table's rows and the balances equal the snapshot's manifest. Redis is not backed up: a
 * worker on the restored database with an empty Redis rebuilds the schedules, the active hold's
 * expiry and the pending payment's polling from the tables.
 */
jest.setTimeout(240_000);

let t: TestContext;
let dir: string;
let file: string;
let manifest: BackupManifest;
let restoredName: string;
let restoredUrl: string;
let restored: Db;
const f: { holdId: number; pendingPaymentId: number; refundedPaymentId: number; decidedDrawId: number; autopayDrawId: number } =
  {} as never;
let purchasesDuringBackup = 0;

const adminUrl = (db = 'postgres') => serverUrl(db);
const admin = serverQuery;
const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const count = async (db: Db, table: string) => Number((await db(table).count({ n: '*' }))[0].n);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-drill-'));
  file = path.join(dir, 'drill.cvbak');
  restoredName = `cv_t_${process.env.TEST_RUN_ID ?? process.pid}_rst${randomBytes(3).toString('hex')}`;
  restoredUrl = adminUrl(restoredName);
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  const approve = (paymentId: number) => t.services.payments.approveSandbox(paymentId, { via: 'cli' });

  // Autopay: a saved card charged for its captive numbers in the main series' next draw.
  const { draw: first } = await mainSeries(t, { price_cents: 500 });
  await autopayUser(t, [10, 11]);
  f.autopayDrawId = await openNextDraw(t, first.id);
  await t.services.autopay.chargeDraw(f.autopayDrawId);
  const runs = await t.services.db('autopay_runs').where({ draw_id: f.autopayDrawId });
  expect(runs.length).toBeGreaterThan(0);

  // E-books bought by PIX and approved: vouchers and cashback coupons.
  const a = await createUser(t);
  const b = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 }, { max_per_user: 0 });
  const ebooks = await t.api('POST', '/api/payments/infoproduct', {
    token: a.token,
    body: { infoproduct_id: product.id, quantity: 3, amount_cents_total: 1500 },
  });
  expect(ebooks.status).toBe(201);
  await approve(ebooks.body.paymentId);
  // Two numbers picked with those vouchers.
  const picked = await reserve(t, a.token, draw.id, [1, 2]);
  expect(
    (await t.api('POST', '/api/vouchers/consume', { token: a.token, body: { reservationId: picked.id, numbers: [1, 2] } })).status,
  ).toBe(200);

  // A reservation paid by PIX, then refunded by the operator.
  const toRefund = await reserve(t, b.token, draw.id, [30, 31]);
  const pix = await t.api('POST', '/api/payments/pix', { token: b.token, body: { reservationId: toRefund.id } });
  expect(pix.status).toBe(201);
  await approve(pix.body.paymentId);
  f.refundedPaymentId = pix.body.paymentId;
  await t.services.payments.refund(pix.body.paymentId, { reason: 'cliente desistiu' }, { via: 'cli' });
  expect((await t.services.db('payments').where({ id: f.refundedPaymentId }).first()).status).toBe('refunded');

  // A hold left active and a PIX still pending: Redis jobs the restore must rebuild.
  const hold = await reserve(t, b.token, draw.id, [40]);
  f.holdId = hold.id;
  const pendingHold = await reserve(t, a.token, draw.id, [50]);
  const pending = await t.api('POST', '/api/payments/pix', { token: a.token, body: { reservationId: pendingHold.id } });
  expect(pending.status).toBe(201);
  f.pendingPaymentId = pending.body.paymentId;

  // A draw decided from a recorded Lotomania result.
  const decided = await makeDraw(t, { total_numbers: 100 });
  f.decidedDrawId = decided.id;
  await sellDirectly(t, decided.id, a.user.id, [9, 3]);
  await sellDirectly(t, decided.id, b.user.id, [11]);
  const held = new Date(Date.now() - 3 * 86_400_000);
  await t.services
    .db('draws')
    .where({ id: decided.id })
    .update({ status: 'closed', closed_at: new Date(held.getTime() - 3600_000) });
  const numbers = [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 11, 9, 7];
  await t.services.results.record({ contest_number: 2700, numbers, drawn_at: held }, { actorUserId: null, actor: 'cli', source: 'cli' });
  expect((await t.services.db('draws').where({ id: decided.id }).first()).status).toBe('drawn');
  expect((await t.services.books.check()).ok).toBe(true);

  // The backup, while three buyers keep buying numbers (reserve → PIX → approved) in another draw.
  const { draw: busy } = await makeProductWithDraw(t, { price_cents: 200 }, { max_per_user: 0 });
  const buyers = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  let next = 1;
  let backupRunning = false;
  let backupDone = false;
  const buyLoop = async (token: string) => {
    let afterStart = 0;
    while (!backupDone || afterStart < 1) {
      const n = next++;
      if (n > 99) break; // the draw has numbers 0–99
      const started = backupRunning;
      const r = await reserve(t, token, busy.id, [n]);
      const p = await t.api('POST', '/api/payments/pix', { token, body: { reservationId: r.id } });
      expect(p.status).toBe(201);
      await approve(p.body.paymentId);
      if (started) {
        afterStart++;
        purchasesDuringBackup++;
      }
    }
  };
  const loops = buyers.map((u) => buyLoop(u.token));
  await eventually(async () => next > 4, 'purchases under way');
  backupRunning = true;
  const backup = await cli(['db', 'backup', '--out', file]);
  backupDone = true;
  await Promise.all(loops);
  expect(backup.err).toBe('');
  expect(backup.code).toBe(0);
  expect(backup.out).toContain(`backup gravado: ${file}`);
  manifest = (await readBackupHeader(file)).manifest;
});

afterAll(async () => {
  await restored?.destroy().catch(() => {});
  await t?.close();
  await admin(`DROP DATABASE IF EXISTS "${restoredName}" WITH (FORCE)`).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the backup is one consistent snapshot taken while purchases went on', async () => {
  expect(purchasesDuringBackup).toBeGreaterThan(0);
  // The store kept selling: the live database has more paid numbers than the snapshot.
  expect(await count(t.services.db, 'payments')).toBeGreaterThan(manifest.tables.find((x) => x.name === 'payments')!.rows);
  // The books held at that instant (sales in flight are all-or-nothing inside the snapshot).
  expect(manifest.books.ok).toBe(true);
  expect(manifest.books.checks.length).toBeGreaterThan(5);
  expect(manifest.product).toEqual({ name: 'cotaverde', version: expect.any(String) });
  const level = (await t.services.db('knex_migrations').orderBy('id').select('name')).map((r) => r.name);
  expect(manifest.migrations).toEqual(level);
  expect(manifest.checksum.value).toMatch(/^[0-9a-f]{64}$/);
  // Every table of the schema but knex's own is in it, with its rows counted.
  const tables = await t.services.db.raw(
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'knex_%' ORDER BY 1",
  );
  expect(manifest.tables.map((x) => x.name).sort()).toEqual(tables.rows.map((r: { tablename: string }) => r.tablename));
  for (const name of ['payments', 'number_sales', 'voucher_ledger', 'coupon_ledger', 'autopay_runs', 'lottery_results']) {
    expect(manifest.tables.find((x) => x.name === name)!.rows).toBeGreaterThan(0);
  }
  expect(manifest.balances['payments.refunded.count']).toBeGreaterThanOrEqual(1);
  expect(manifest.balances['coupons.balance_cents']).toBeGreaterThan(0);
});

test('restore into a new database: rows, balances and books equal the snapshot; the schema is at the code level', async () => {
  const r = await cli(['db', 'restore', file, '--into', restoredUrl]);
  expect(r.err).not.toMatch(STACK);
  expect(r.code).toBe(0);
  expect(r.out).toContain(`banco ${restoredName} criado.`);
  expect(r.out).toContain('checksum confere');
  expect(r.out).toContain('saldos conferem com o manifesto.');
  expect(r.out).toContain('os livros conferem');
  expect(r.out).toContain('restauração concluída.');

  restored = createDb(restoredUrl, 2);
  for (const table of manifest.tables) expect([table.name, await count(restored, table.name)]).toEqual([table.name, table.rows]);
  expect(await balancesOf(restored)).toEqual(manifest.balances);
  const level = (await restored('knex_migrations').orderBy('id').select('name')).map((x) => x.name);
  expect([...level].sort()).toEqual([...manifest.migrations].sort());
  // The refund, the decided draw and the autopay charges came back as they were.
  expect((await restored('payments').where({ id: f.refundedPaymentId }).first()).status).toBe('refunded');
  expect((await restored('draws').where({ id: f.decidedDrawId }).first()).status).toBe('drawn');
  expect(await count(restored, 'autopay_runs')).toBe(manifest.tables.find((x) => x.name === 'autopay_runs')!.rows);
  // Sequences go on after the restored rows: a new row never collides with a restored id.
  for (const s of manifest.sequences) {
    const max = Number((await restored(s.table).max({ m: s.column }))[0].m ?? 0);
    const nextId = Number((await restored.raw('SELECT nextval(?::regclass) AS v', [s.name])).rows[0].v);
    expect([s.table, nextId > max]).toEqual([s.table, true]);
  }
});

describe('Redis is not backed up', () => {
  let redis: PrivateRedis;
  let services: Services;
  let worker: RunningWorker | null = null;
  afterAll(async () => {
    await worker?.close();
    if (services) {
      const keys = await services.redis.keys('cvdrill*');
      if (keys.length) await services.redis.del(...keys);
      await services.close();
    }
    await redis?.stop();
    if (redis) fs.rmSync(redis.dir, { recursive: true, force: true });
  });

  test('a worker on the restored database with an empty Redis rebuilds the schedules, the hold expiry and the PIX polling', async () => {
    redis = new PrivateRedis(await freePort(), { name: 'drill' });
    await redis.start();
    // A brand-new Redis: no key at all before the app on the restored database connects.
    const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await probe.connect();
    expect(await probe.dbsize()).toBe(0);
    probe.disconnect();
    const config = loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: restoredUrl,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'cvdrill',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://cotaverde.test',
    });
    services = createServices({ config });
    worker = await startWorker({
      connection: services.redis,
      prefix: 'cvdrill',
      handlers: registerJobHandlers(services),
      logger: services.logger,
      queue: services.queue,
    });
    const schedulers = async () => (await services.redis.zrange(schedulerSetKey('cvdrill', QUEUE_NAME), '0', '-1')).sort();
    await eventually(async () => ((await schedulers()).length === SCHEDULES.length ? true : null), 'every schedule back');
    expect(await schedulers()).toEqual(SCHEDULES.map((s) => s.id).sort());
    // The active hold's expiry job and the pending PIX's polling, rebuilt from the tables by the recovery sweeps.
    await eventually(
      async () => {
        const jobs = await services.queue.raw.getJobs(['delayed', 'waiting', 'active', 'completed']);
        const expiry = jobs.some((j) => j?.name === 'reservation.expire' && Number(j.data.reservationId) === f.holdId);
        const poll = jobs.some((j) => j?.name === 'payment.poll' && Number(j.data.paymentId) === f.pendingPaymentId);
        return expiry && poll ? true : null;
      },
      'the hold expiry and the payment polling rebuilt',
      60_000,
    );
    // The hold is still active in the restored tables (the job waits for its time).
    expect((await restored('reservations').where({ id: f.holdId }).first()).status).toBe('active');
  });
});
