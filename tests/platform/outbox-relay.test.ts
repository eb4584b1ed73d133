import { createTestContext, type TestContext } from '../helpers/context';
import { emitEvent, type DomainEvents, type EventName } from '../../src/platform/events';
import type { Logger } from '../../src/platform/logger';
import { SKIPPED_EVENTS, buildEventRegistry, createOutboxRelay, onEvent, outboxRelayJob, registerEventHandlers } from '../../jobs/outbox';

/**
 * The generic outbox relay (jobs/outbox.ts): every event name of the map is handled or declared
 * skipped, so nothing piles up (draw.closed has no consumer); handlers may see an event again
 * without harm; a failing handler leaves its event for the next pass; an unknown name is logged.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t?.close();
});

async function emit<E extends EventName>(name: E, payload: DomainEvents[E]): Promise<number> {
  await t.services.db.transaction((trx) => emitEvent(trx, name, payload));
  const row = await t.services.db('domain_events').where({ name }).orderBy('id', 'desc').first('id');
  return Number(row.id);
}
const dispatched = async (id: number) => !!(await t.services.db('domain_events').where({ id }).whereNotNull('dispatched_at').first('id'));
const silent = () => ({
  errors: [] as unknown[][],
  error(...a: unknown[]) {
    this.errors.push(a);
  },
  warn() {},
  info() {},
  debug() {},
});

test('the registry: every event is handled or skipped, never both; draw.closed is skipped', () => {
  expect(SKIPPED_EVENTS).toContain('draw.closed');
  expect(() => registerEventHandlers(t.services)).not.toThrow();
  expect(() => buildEventRegistry([], ['draw.closed'])).toThrow(/no handler for draw\.opened/);
  expect(() => buildEventRegistry([onEvent('draw.closed', async () => {})], ['draw.closed', 'draw.opened'])).toThrow(
    /both handled and skipped/,
  );
});

test('a draw.closed row is relayed (marked dispatched) by the worker job', async () => {
  const id = await emit('draw.closed', { drawId: 990001, by: 'admin' });
  const job = outboxRelayJob(t.services);
  await job({}, {} as never);
  expect(await dispatched(id)).toBe(true);
});

test('draw.opened goes to autopay (one charge job per draw), and delivering it again is safe', async () => {
  const drawId = 990002;
  const id = await emit('draw.opened', { drawId, infoproductId: null, by: 'admin' });
  const relay = createOutboxRelay({ db: t.services.db, logger: t.services.logger, registry: registerEventHandlers(t.services) });
  expect((await relay.relay()).dispatched).toBeGreaterThanOrEqual(1);
  expect(await dispatched(id)).toBe(true);
  const jobId = `autopay-charge-${drawId}`;
  expect((await t.services.queue.raw.getJob(jobId))?.data).toEqual({ drawId });
  // Delivered again (as after a crash before the commit): still one job, the event dispatched.
  await t.services.db('domain_events').where({ id }).update({ dispatched_at: null });
  await relay.relay();
  expect(await dispatched(id)).toBe(true);
  const jobs = await t.services.queue.raw.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
  expect(jobs.filter((j) => j.id === jobId)).toHaveLength(1);
});

test('two relays at once handle each event once (the batch is locked)', async () => {
  const seen: number[] = [];
  const registry = buildEventRegistry(
    [
      onEvent('draw.opened', async (_e, { eventId }) => {
        seen.push(eventId);
        await new Promise((r) => setTimeout(r, 20));
      }),
    ],
    ['draw.closed'],
  );
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(await emit('draw.opened', { drawId: 990100 + i, infoproductId: null, by: 'sellout' }));
  const a = createOutboxRelay({ db: t.services.db, logger: t.services.logger, registry });
  const b = createOutboxRelay({ db: t.services.db, logger: t.services.logger, registry });
  await Promise.all([a.relay(), b.relay()]);
  for (const id of ids) expect(await dispatched(id)).toBe(true);
  expect(seen.filter((id) => ids.includes(id)).sort((x, y) => x - y)).toEqual(ids);
});

test('a failing handler leaves its event for the next pass (its writes rolled back); the others are relayed', async () => {
  let calls = 0;
  const registry = buildEventRegistry(
    [
      onEvent('draw.opened', async (e, { trx }) => {
        calls++;
        await trx('app_config').insert({ key: `outbox_test_${e.drawId}_${calls}`, value: JSON.stringify(calls) });
        if (calls === 1) throw new Error('redis away');
      }),
    ],
    ['draw.closed'],
  );
  const relay = createOutboxRelay({ db: t.services.db, logger: silent() as unknown as Logger, registry });
  const opened = await emit('draw.opened', { drawId: 990200, infoproductId: null, by: 'admin' });
  const closed = await emit('draw.closed', { drawId: 990200, by: 'sellout' });
  await expect(relay.relay()).rejects.toThrow(/not relayed.*redis away/);
  expect(await dispatched(opened)).toBe(false);
  expect(await dispatched(closed)).toBe(true);
  expect(await t.services.db('app_config').where({ key: 'outbox_test_990200_1' }).first()).toBeUndefined();
  // The next pass retries it.
  await expect(relay.relay()).resolves.toMatchObject({ failed: 0 });
  expect(await dispatched(opened)).toBe(true);
  expect(calls).toBe(2);
  expect(await t.services.db('app_config').where({ key: 'outbox_test_990200_2' }).first()).toBeDefined();
  await t.services.db('app_config').where('key', 'like', 'outbox_test_%').del();
});

test('an event of a name the map does not know is never marked, and is logged as an error', async () => {
  const [row] = await t.services
    .db('domain_events')
    .insert({ name: 'draw.exploded', payload: JSON.stringify({ drawId: 1 }) })
    .returning('id');
  const logger = silent();
  const relay = createOutboxRelay({ db: t.services.db, logger: logger as unknown as Logger, registry: registerEventHandlers(t.services) });
  await relay.relay();
  await relay.relay();
  expect(await dispatched(Number(row.id))).toBe(false);
  // Once per name and minute, not on every pass.
  expect(logger.errors).toHaveLength(1);
  expect(logger.errors[0][0]).toMatchObject({ event: 'draw.exploded', count: 1 });
  await t.services.db('domain_events').where({ id: row.id }).del();
});
