import fs from 'node:fs';
import { Writable } from 'node:stream';
import { createTestContext, type TestContext } from '../helpers/context';
import { startTestWorker } from '../helpers/worker';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/ports';
import { PrivateRedis } from '../helpers/private-redis';
import { makeDraw } from '../draws/fixtures';
import { createLogger } from '../../src/platform/logger';
import { QUEUE_NAME, type RunningWorker, type Schedule } from '../../src/platform/queue';
import { schedulerSetKey } from '../../src/platform/heartbeat';

/**
 * A Redis that loses its keys while the worker stays connected (a real FLUSHALL on a private
 * redis-server, never the suite's shared one): /api/ready reports the worker's missing
 * schedules; the worker notices them and restores them (with the recovery sweeps), so the
 * scheduled work runs again. The start-up warns when maxmemory-policy is not noeviction.
 */
jest.setTimeout(180_000);

let redis: PrivateRedis;
let t: TestContext;
const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
let worker: RunningWorker | null = null;
const RELAY: Schedule[] = [{ id: 'outbox-relay', name: 'outbox.relay', everyMs: 500 }];

beforeAll(async () => {
  redis = new PrivateRedis(await freePort(), { name: 'redis-wipe', extraArgs: ['--maxmemory-policy', 'allkeys-lru'] });
  await redis.start();
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  t = await createTestContext({ env: { REDIS_URL: redis.url }, logger: () => createLogger({ level: 'info', destination: sink }) });
});

afterAll(async () => {
  try {
    await worker?.close();
    await t?.close();
  } finally {
    await redis.stop();
    fs.rmSync(redis.dir, { recursive: true, force: true });
  }
});

const ready = () => t.api('GET', '/api/ready');
const scheduled = async () =>
  (await t.services.redis.zscore(schedulerSetKey(t.services.config.queuePrefix, QUEUE_NAME), 'outbox-relay')) !== null;
/** A draw.opened event the relay (a scheduled job) must dispatch. */
async function eventToRelay(): Promise<number> {
  const d = await makeDraw(t);
  const [row] = await t.services
    .db('domain_events')
    .insert({ name: 'draw.opened', payload: JSON.stringify({ drawId: d.id }) })
    .returning('id');
  return Number(row.id);
}
const dispatched = async (id: number) => !!(await t.services.db('domain_events').where({ id }).whereNotNull('dispatched_at').first('id'));

test('the start-up warns when maxmemory-policy is not noeviction', async () => {
  worker = await startTestWorker(t, { schedules: RELAY, heartbeatMs: 300, scheduleCheckMs: 600_000 });
  const warn = lines.find((l) => l.maxmemoryPolicy === 'allkeys-lru');
  expect(warn).toMatchObject({ level: 40 });
  expect(warn!.msg).toMatch(/set it to noeviction/);
});

test('FLUSHALL while connected: /api/ready reports the worker whose schedules are missing', async () => {
  await eventually(async () => (await ready()).body.status === 'ready', 'ready before the wipe');
  expect((await ready()).body.worker.schedules).toEqual({ status: 'ok', missing: [] });
  await t.services.redis.flushall();
  // This worker checks its schedules only every 10 minutes: the wipe stays visible.
  const seen = await eventually(async () => {
    const r = await ready();
    return r.body.down.includes('worker_schedules') && r.body.worker.status === 'ok' ? r : null;
  }, 'ready to report the missing schedules');
  expect(seen.status).toBe(200);
  expect(seen.body).toMatchObject({
    status: 'degraded',
    worker: { status: 'ok', schedules: { status: 'missing', missing: ['outbox-relay'] } },
  });
  expect(await scheduled()).toBe(false);
  await worker!.close();
  worker = null;
});

test('FLUSHALL while connected: the worker notices the lost schedules, restores them, and the scheduled work runs again', async () => {
  worker = await startTestWorker(t, { schedules: RELAY, heartbeatMs: 300, scheduleCheckMs: 500 });
  const before = await eventToRelay();
  await eventually(() => dispatched(before), 'the relay running before the wipe');
  await t.services.redis.flushall();
  expect(await scheduled()).toBe(false);
  const after = await eventToRelay();
  await eventually(scheduled, 'the schedule restored', 60_000);
  await eventually(() => dispatched(after), 'the relay running again after the wipe', 60_000);
  expect(
    lines.some(
      (l) =>
        l.level === 40 &&
        /job schedules missing from redis/.test(l.msg) &&
        Array.isArray(l.missing) &&
        (l.missing as string[]).includes('outbox-relay'),
    ),
  ).toBe(true);
  await eventually(async () => (await ready()).body.status === 'ready', 'ready again');
  expect((await ready()).body.worker.schedules).toEqual({ status: 'ok', missing: [] });
});
