import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { childProcessEnv, createTestContext, createUser, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/eventually';
import { waitForJob } from '../helpers/jobs';
import { startTestWorker } from '../helpers/worker';
import { registerJobHandlers } from '../../jobs/registry';
import { grant } from '../draws/fixtures';
import { balanceOf, ledgerOf, makeProductWithDraw, paymentRow, sandboxBank } from '../payments/fixtures';
import { ReadCache } from '../../src/platform/read-cache';
import { createCacheBus } from '../../src/platform/cache-bus';
import { createRedis } from '../../src/platform/redis';
import { QUEUE_NAME, SCHEDULES } from '../../src/platform/queue';
import { Queue } from 'bullmq';
import { freePort } from '../helpers/ports';
import { jsonOrText } from '../helpers/http';
import { openSse } from '../helpers/sse';
import { randomBytes } from 'node:crypto';
import { insertSession } from '../../src/auth/queries';
import { sha256 } from '../../src/auth/service';

/**
 * Past one machine (docs/DECISIONS.md "Operations and several processes"): 2 web + 2 worker
 * processes, started here as real child processes (src/bin/web.ts, and jobs/worker.ts's startWorker
 * with short BullMQ lock timings), against one database and one Redis. Per-process state must not
 * break: a sale through web A shows on the board served by web B within 1 s; payments approved
 * while both workers run are fulfilled exactly once; a worker killed mid-run loses nothing; rate
 * limits are shared; the job schedulers run once per tick whatever the number of workers.
 */
const ROOT = path.resolve(__dirname, '../..');
let t: TestContext;
const children: ChildProcess[] = [];
let webA: string;
let webB: string;
let workers: Array<{ child: ChildProcess; output: () => string }> = [];
/** The queue seen from the test, on a connection that waits (the app's fail-fast one gives up after 1 s under load). */
let queue: Queue;

function spawnChild(script: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}

async function startWeb(): Promise<string> {
  const port = await freePort();
  const w = spawnChild(
    path.join(ROOT, 'src/bin/web.ts'),
    childProcessEnv(t, { PORT: String(port), HOST: '127.0.0.1', TRUST_PROXY: 'true' }),
  );
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (w.child.exitCode !== null) throw new Error(`web exited early (${w.child.exitCode}):\n${w.output()}`);
      return fetch(`${url}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
    },
    'a web process to listen',
    120_000,
    100,
  );
  return url;
}

async function startWorkerProcess() {
  const w = spawnChild(
    path.join(ROOT, 'tests/payments/support/worker-process.ts'),
    childProcessEnv(t, { WORKER_LOCK_MS: '2000', WORKER_STALLED_MS: '1000' }),
  );
  await eventually(
    async () => {
      if (w.child.exitCode !== null) throw new Error(`worker exited early (${w.child.exitCode}):\n${w.output()}`);
      return w.output().includes('worker ready');
    },
    'a worker process to start',
    120_000,
    100,
  );
  return w;
}

const exited = (c: ChildProcess) =>
  new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));

async function call(base: string, method: string, p: string, o: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + p, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  const body = jsonOrText(text);
  return { status: res.status, body };
}

beforeAll(async () => {
  t = await createTestContext();
  queue = new Queue(QUEUE_NAME, { connection: t.services.redis, prefix: t.services.config.queuePrefix });
  // Generous start-up bounds: each child compiles the TypeScript (tsx) on a possibly busy machine.
  [webA, webB] = await Promise.all([startWeb(), startWeb()]);
  workers = await Promise.all([startWorkerProcess(), startWorkerProcess()]);
}, 300_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => Promise.race([exited(c), new Promise((r) => setTimeout(r, 8_000))])));
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await queue.close();
  await t.close();
}, 60_000);

test('both worker processes beat: /api/ready through either web names two live workers', async () => {
  for (const base of [webA, webB]) {
    const r = await call(base, 'GET', '/api/ready');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ready', database: true, redis: true, worker: { status: 'ok', live_workers: 2 }, down: [] });
  }
});

test('a sale through web A shows on the board served by web B within 1 s', async () => {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const u = await createUser(t);
  await grant(t, u.user.id, product.id, 2);
  const cell = (board: { numbers: Array<{ n: number; status: string }> }, n: number) => board.numbers.find((x) => x.n === n)!.status;

  for (const n of [7, 8]) {
    // Web B has the board in its read cache (asked twice: cached, and in the fast lane).
    for (let i = 0; i < 2; i++) expect(cell((await call(webB, 'GET', `/api/draws/${draw.id}/numbers`)).body, n)).toBe('available');
    const hold = await call(webA, 'POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [n] } });
    expect(hold.status).toBe(201);
    const sale = await call(webA, 'POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: hold.body.id, numbers: [n] } });
    expect(sale.status).toBe(200);
    const soldAt = Date.now();
    // Poll web B until a request that started past the 1 s bound has answered. Every answer to a
    // request started 1 s or more after the sale must show it (the bound, whatever the machine's
    // load makes each request take); the bus usually shows it on the first poll already.
    const answers: Array<{ startedAfter: number; status: string }> = [];
    for (;;) {
      const startedAfter = Date.now() - soldAt;
      answers.push({ startedAfter, status: cell((await call(webB, 'GET', `/api/draws/${draw.id}/numbers`)).body, n) });
      if (startedAfter >= 1000) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    for (const a of answers.filter((x) => x.startedAfter >= 1000)) expect(a).toEqual({ startedAfter: a.startedAfter, status: 'sold' });
    expect(answers.some((a) => a.status === 'sold')).toBe(true);
    // Once shown, never stale again.
    const first = answers.findIndex((a) => a.status === 'sold');
    expect(answers.slice(first).every((a) => a.status === 'sold')).toBe(true);
  }
});

test('live boards: a sale through web A reaches an event stream open on web B, and B resumes a stream A started', async () => {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const u = await createUser(t, { name: 'Carla Dias' });
  await grant(t, u.user.id, product.id, 1);
  const onB = await openSse(`${webB}/api/draws/${draw.id}/events`);
  const onA = await openSse(`${webA}/api/draws/${draw.id}/events`);
  try {
    expect(onB.status).toBe(200);
    await onB.waitFor((e) => e.event === 'board', 'the board on web B');
    const boardA = await onA.waitFor((e) => e.event === 'board', 'the board on web A');
    onA.close();
    const hold = await call(webA, 'POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [42] } });
    expect(hold.status).toBe(201);
    const sale = await call(webA, 'POST', '/api/vouchers/consume', {
      token: u.token,
      body: { reservationId: hold.body.id, numbers: [42] },
    });
    expect(sale.status).toBe(200);
    const sold = await onB.waitFor(
      (e) => e.event === 'numbers' && e.data.numbers.some((x: { n: number; status: string }) => x.n === 42 && x.status === 'sold'),
      'the sale on web B’s stream',
    );
    expect(sold.data.numbers).toContainEqual({ n: 42, status: 'sold', initials: 'CD' });
    // Event ids are the same in every process: the stream A started resumes on B with what it missed.
    const resumed = await openSse(`${webB}/api/draws/${draw.id}/events`, { 'last-event-id': boardA.id! });
    try {
      await resumed.waitFor((e) => e.id === sold.id, 'the missed sale, resumed on web B');
      expect(resumed.events.some((e) => e.event === 'board' || e.event === 'reload')).toBe(false);
    } finally {
      resumed.close();
    }
  } finally {
    onA.close();
    onB.close();
  }
});

test('the bus itself: an invalidation in one process drops the other process’s cached answer before its TTL', async () => {
  const redisUrl = t.services.config.redisUrl;
  const channel = `${t.services.config.queuePrefix}:bus-test`;
  const pubA = createRedis(redisUrl, 'bus-a', 'fail-fast');
  const pubB = createRedis(redisUrl, 'bus-b', 'fail-fast');
  const cacheA = new ReadCache({ ttlMs: 1000 });
  const cacheB = new ReadCache({ ttlMs: 1000 });
  const busA = createCacheBus({ cache: cacheA, publisher: pubA, redisUrl, channel, logger: t.services.logger });
  const busB = createCacheBus({ cache: cacheB, publisher: pubB, redisUrl, channel, logger: t.services.logger });
  try {
    await busB.subscribe();
    expect(busB.subscribed).toBe(true);
    // Frozen clock in B: its entries never expire by themselves in this test.
    let builds = 0;
    const build = async () => ({ body: { n: ++builds }, drawIds: [42] });
    await cacheB.get('board:42', build);
    await cacheB.get('other:43', async () => ({ body: { x: 1 }, drawIds: [43] }));
    expect(cacheB.size).toBe(2);
    cacheA.invalidateDraw(42);
    await eventually(async () => cacheB.size === 1, 'web B to drop the board of draw 42', 900, 5);
    expect(JSON.parse((await cacheB.get('board:42', build)).json)).toEqual({ n: 2 });
    cacheA.invalidateAll();
    await eventually(async () => cacheB.size === 0, 'web B to drop everything', 900, 5);
    // A process's own invalidations are not applied twice, and a bad message is ignored.
    await pubA.publish(channel, 'not json');
    await pubA.publish(channel, JSON.stringify({ o: 'x', m: { kind: 'draw', drawId: 'DROP TABLE' } }));
  } finally {
    await busA.close();
    await busB.close();
    pubA.disconnect();
    pubB.disconnect();
  }
  // Redis away (a closed publisher): invalidating never throws; the TTL is the bound then.
  const cache = new ReadCache({ ttlMs: 1000 });
  const dead = createRedis('redis://127.0.0.1:1', 'dead', 'fail-fast');
  dead.on('error', () => {});
  createCacheBus({ cache, publisher: dead, redisUrl: 'redis://127.0.0.1:1', channel, logger: t.services.logger });
  expect(() => cache.invalidateDraw(1)).not.toThrow();
  dead.disconnect();
});

describe('sessions stay revocable at once on every web process (each web caches sessions, platform/session-cache.ts)', () => {
  /** A second session of the same user (as a second device's login would open). */
  async function secondSession(userId: number) {
    const token = randomBytes(32).toString('base64url');
    await insertSession(t.services.db, userId, sha256(token), 1);
    return token;
  }
  const me = (base: string, token: string) => call(base, 'GET', '/api/me', { token }).then((r) => r.status);
  /** Both webs have read both sessions (so both hold them in their session caches). */
  async function warm(tokens: string[]) {
    for (const base of [webA, webB]) for (const token of tokens) expect(await me(base, token)).toBe(200);
  }

  test('logout through web A: the next request through web B with that token (or any session of the user) is refused', async () => {
    const u = await createUser(t);
    const other = await secondSession(u.user.id);
    await warm([u.token, other]);
    // The cache is real: a revocation written straight to the database (no service, so no
    // message) is not seen by web B's cached session yet.
    await t.services
      .db('auth_tokens')
      .where({ token_hash: sha256(other) })
      .update({ revoked_at: t.services.db.fn.now() });
    expect(await me(webB, other)).toBe(200);
    // A logout through the service: committed, then published before web A answers.
    expect((await call(webA, 'POST', '/api/auth/logout', { token: u.token })).status).toBe(204);
    expect(await me(webB, u.token)).toBe(401);
    expect(await me(webA, u.token)).toBe(401);
    // Every entry of that user was dropped on web B: the other session is read again (revoked).
    expect(await me(webB, other)).toBe(401);
  });

  test('a password reset through web A ends the old sessions on web B at once', async () => {
    const u = await createUser(t);
    await warm([u.token]);
    const link = randomBytes(32).toString('base64url');
    await t.services
      .db('password_resets')
      .insert({ user_id: u.user.id, token_hash: sha256(link), expires_at: t.services.db.raw("now() + interval '30 minutes'") });
    const r = await call(webA, 'POST', '/api/auth/reset-password/confirm', {
      body: { token: link, password: 'outra-senha-segura-2' },
      headers: { 'x-forwarded-for': `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}` },
    });
    expect([r.status, r.body]).toEqual([200, { ok: true }]);
    expect(await me(webB, u.token)).toBe(401);
  });

  test('an admin demoted through web A is refused admin routes on web B at once, and web B says so on /api/me', async () => {
    const boss = await createUser(t, { admin: true });
    const demoted = await createUser(t, { admin: true });
    for (const base of [webA, webB]) expect((await call(base, 'GET', '/api/admin/draws', { token: demoted.token })).status).toBe(200);
    await warm([demoted.token]);
    const r = await call(webA, 'PUT', `/api/admin/users/${demoted.user.id}`, { token: boss.token, body: { is_admin: false } });
    expect(r.status).toBe(200);
    expect((await call(webB, 'GET', '/api/admin/draws', { token: demoted.token })).status).toBe(403);
    expect((await call(webB, 'GET', '/api/me', { token: demoted.token })).body.user).toMatchObject({ is_admin: false, role: 'customer' });
  });

  test('an account removed through web A: its token is refused on web B at once', async () => {
    const boss = await createUser(t, { admin: true });
    const gone = await createUser(t);
    await warm([gone.token]);
    const r = await call(webA, 'DELETE', `/api/admin/users/${gone.user.id}`, { token: boss.token });
    expect([r.status, r.body.outcome]).toEqual([200, 'deleted']);
    expect(await me(webB, gone.token)).toBe(401);
    expect((await call(webB, 'GET', '/api/vouchers/remaining', { token: gone.token })).status).toBe(401);
  });
});

/** A customer buys `quantity` e-books through `base`; returns the payment id. */
async function buy(base: string, token: string, productId: number, quantity = 1) {
  const r = await call(base, 'POST', '/api/payments/infoproduct', {
    token,
    body: { infoproduct_id: productId, quantity, amount_cents_total: 500 * quantity },
  });
  if (r.status !== 201) throw new Error(`buy: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.paymentId as number;
}

async function expectFulfilledOnce(list: Array<{ paymentId: number; userId: number; productId: number; quantity: number }>) {
  for (const p of list) {
    expect(await paymentRow(t, p.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: false });
    const l = await ledgerOf(t, p.paymentId);
    expect([p.paymentId, l.fulfilments.length, l.granted]).toEqual([p.paymentId, 1, p.quantity]);
    expect(l.vouchers).toEqual([{ reason: 'grant', delta: p.quantity, user_id: p.userId, infoproduct_id: p.productId }]);
    expect(await balanceOf(t, p.userId, p.productId)).toBe(p.quantity);
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(p.paymentId), action: 'payment.approved' }),
    ).toHaveLength(1);
  }
}

test('50 payments approved while both workers run are fulfilled exactly once (customers confirming through both webs at the same time)', async () => {
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const buyers = await Promise.all(Array.from({ length: 50 }, () => createUser(t)));
  const list = await Promise.all(
    buyers.map(async (u, i) => ({
      paymentId: await buy(i % 2 ? webB : webA, u.token, product.id),
      userId: u.user.id,
      productId: product.id,
      quantity: 1,
      token: u.token,
    })),
  );
  // The bank approves all 50; the workers' polls run now, while each customer presses 'Já paguei' on both webs.
  await Promise.all(list.map((p) => sandboxBank(t, p.paymentId, 'approved')));
  await Promise.all(
    list.map(async (p) => {
      const job = await queue.getJob(`payment-poll-${p.paymentId}`);
      await Promise.all([
        job?.promote().catch(() => {}),
        call(webA, 'POST', '/api/purchases/confirm', { token: p.token, body: { payment_id: p.paymentId } }),
        call(webB, 'POST', '/api/purchases/confirm', { token: p.token, body: { payment_id: p.paymentId } }),
      ]);
    }),
  );
  await eventually(
    async () => {
      const r = await t.services
        .db('payments')
        .whereIn(
          'id',
          list.map((p) => p.paymentId),
        )
        .where({ status: 'approved' })
        .count<{ c: string }[]>({ c: '*' });
      return Number(r[0].c) === 50;
    },
    'all 50 payments approved',
    120_000,
    100,
  );
  // Every poll job ends (completed, or removed once settled): nothing left running twice.
  await eventually(async () => (await queue.getActiveCount()) === 0, 'the workers to go idle', 30_000, 100);
  await expectFulfilledOnce(list);
}, 240_000);

test('a worker killed (SIGKILL) mid-run loses nothing: its jobs are re-run by the other, each payment fulfilled once', async () => {
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const buyers = await Promise.all(Array.from({ length: 20 }, () => createUser(t)));
  const list = await Promise.all(
    buyers.map(async (u, i) => ({
      paymentId: await buy(i % 2 ? webB : webA, u.token, product.id, 2),
      userId: u.user.id,
      productId: product.id,
      quantity: 2,
    })),
  );
  await Promise.all(list.map((p) => sandboxBank(t, p.paymentId, 'approved')));

  // Hold every buyer's voucher balance row (uncommitted inserts): each fulfilment blocks there,
  // inside its transaction, so both workers are full of running jobs (8 each) when one is killed.
  const blocker = await t.services.db.transaction();
  try {
    await blocker('voucher_balances').insert(buyers.map((u) => ({ user_id: u.user.id, infoproduct_id: product.id, balance: 0 })));
    for (const p of list) await (await queue.getJob(`payment-poll-${p.paymentId}`))?.promote();
    await eventually(async () => (await queue.getActiveCount()) >= 16, 'both workers to be busy (8 jobs each)', 30_000, 100);
    const victim = workers[0].child;
    victim.kill('SIGKILL');
    await exited(victim);
    expect(victim.signalCode).toBe('SIGKILL');
    // Nothing the dead worker did is visible: its transactions never committed.
    expect(
      await t.services
        .db('payments')
        .whereIn(
          'id',
          list.map((p) => p.paymentId),
        )
        .where({ status: 'approved' }),
    ).toHaveLength(0);
  } finally {
    await blocker.rollback().catch(() => {});
  }
  // The surviving worker finishes its own jobs and, once their locks expire, the dead one's.
  await eventually(
    async () => {
      const r = await t.services
        .db('payments')
        .whereIn(
          'id',
          list.map((p) => p.paymentId),
        )
        .where({ status: 'approved' })
        .count<{ c: string }[]>({ c: '*' });
      return Number(r[0].c) === list.length;
    },
    'every payment approved after the kill',
    120_000,
    100,
  );
  await eventually(async () => (await queue.getActiveCount()) === 0, 'the surviving worker to go idle', 30_000, 100);
  await expectFulfilledOnce(list);
  // And a replacement worker joins without redoing anything.
  workers[0] = await startWorkerProcess();
  // Whatever the joined worker would take up again (its first stalled-job check runs as it starts,
  // and puts any such job back in line) comes before a job queued now: once that one has run, so has
  // anything it might have redone.
  await queue.add('mail.sweep', {}, { jobId: 'after-replacement' });
  await waitForJob(queue, 'after-replacement', 'completed', 'a job queued after the replacement worker joined to have run');
  await expectFulfilledOnce(list);
}, 360_000);

test('rate limits are shared: failed sign-ins through web A and web B count against one limit', async () => {
  const u = await createUser(t);
  const headers = { 'x-forwarded-for': '10.99.1.7' };
  const attempt = (base: string) =>
    call(base, 'POST', '/api/auth/login', { body: { email: u.email, password: 'senha-errada-1' }, headers });
  // loginAccount: 5 failures per (e-mail, IP) per 15 min, whichever process counts them.
  const statuses: number[] = [];
  for (const base of [webA, webB, webA, webB, webA]) statuses.push((await attempt(base)).status);
  expect(statuses).toEqual([401, 401, 401, 401, 401]);
  const sixth = await attempt(webB);
  expect(sixth.status).toBe(429);
  expect(sixth.body.error).toBe('rate_limited');
  expect((await attempt(webA)).status).toBe(429);
});

test('the job schedulers: one set in Redis whatever the number of workers, one upcoming run each', async () => {
  const schedulers = await queue.getJobSchedulers();
  expect(schedulers.map((s) => s.key ?? s.id).sort()).toEqual(SCHEDULES.map((s) => s.id).sort());
  const upcoming = await queue.getJobs(['delayed', 'waiting', 'prioritized'], 0, -1);
  for (const s of SCHEDULES) {
    expect([s.id, upcoming.filter((j) => j?.repeatJobKey === s.id).length]).toEqual([s.id, 1]);
  }
});

test('a scheduler runs once per tick with two workers on the queue', async () => {
  // Its own context: the child workers of this file would take the ticks otherwise.
  const t2 = await createTestContext();
  const runs: number[] = [];
  const ticks: string[] = [];
  // Counts the scheduler's runs only (each worker also queues one recovery sweep when it starts).
  const handlers = {
    ...registerJobHandlers(t2.services),
    'mail.sweep': async (_data: unknown, job: { repeatJobKey?: string; id?: string }) => {
      if (job.repeatJobKey !== 'tick-test') return;
      runs.push(Date.now());
      ticks.push(String(job.id));
    },
  };
  const schedules = [{ id: 'tick-test', name: 'mail.sweep' as const, everyMs: 250 }];
  const w1 = await startTestWorker(t2, { schedules, handlers, concurrency: 4 });
  const w2 = await startTestWorker(t2, { schedules, handlers, concurrency: 4 });
  try {
    // Until a few ticks have run, however slowly a busy machine runs them (no count per elapsed time).
    await eventually(async () => runs.length >= 5, 'five scheduler runs', 120_000, 50);
  } finally {
    await w1.close();
    await w2.close();
  }
  // No count of runs per wall-clock time (a loaded machine runs late ticks in a burst): never two
  // runs for one tick is what the tick ids below prove.
  // Each run is a different tick (the job id names the tick's time), spaced by the interval:
  // two workers never make two chains (however late a run starts on a busy machine).
  expect(new Set(ticks).size).toBe(ticks.length);
  const tickAt = ticks.map((id) => Number(/:(\d+)$/.exec(id)?.[1]));
  expect(tickAt.every(Number.isFinite)).toBe(true);
  const gaps = tickAt.slice(1).map((at, i) => at - tickAt[i]);
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(250);
  expect((await t2.services.queue.raw.getJobSchedulers()).map((s) => s.key ?? s.id)).toEqual(['tick-test']);
  await t2.close();
}, 60_000);
