import knex, { type Knex } from 'knex';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/ports';
import { TcpProxy } from '../helpers/tcp-proxy';
import { makeProductWithDraw } from '../payments/fixtures';
import { isDatabaseUnavailable } from '../../src/platform/db';

/**
 * PostgreSQL unreachable under a running app: the app's database connections go through a TCP
 * proxy this test stops and starts (the suite's database itself is never touched). While it is
 * down every request that needs the database answers 503 `database_unavailable` with a
 * Retry-After (never a 500), /api/ready says the database is down; once it is back the app
 * answers again by itself. The classifier is checked on errors the real driver raises.
 */
jest.setTimeout(120_000);

let proxy: TcpProxy;
let t: TestContext;

beforeAll(async () => {
  const direct = new URL(process.env.TEST_ADMIN_DATABASE_URL!);
  proxy = new TcpProxy(await freePort(), { host: direct.hostname, port: Number(direct.port) });
  await proxy.start();
  t = await createTestContext({
    env: { RATE_LIMIT_DISABLED: '1' },
    databaseUrl: (u) => {
      u.hostname = '127.0.0.1';
      u.port = String(proxy.port);
      return u;
    },
  });
});

afterAll(async () => {
  if (!proxy.running) await proxy.start(); // a failure mid-outage must not break the cleanup
  await t.close();
  await proxy.stop();
});

function expectDatabaseUnavailable(r: { status: number; body: any; headers: Headers }, what: string) {
  expect([what, r.status, r.body]).toEqual([
    what,
    503,
    { error: 'database_unavailable', message: 'O serviço está temporariamente indisponível. Tente novamente em instantes.' },
  ]);
  expect(r.headers.get('retry-after')).toBe('5');
}

test('database stopped under a running app: 503 database_unavailable with Retry-After, /api/ready 503; started again: the app recovers by itself', async () => {
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 }, { total_numbers: 50 });
  const buyer = await createUser(t, { password: 'senha-segura-1' });
  const admin = await createUser(t, { admin: true });
  // Up: everything answers.
  expect((await t.api('POST', '/api/reservations', { token: buyer.token, body: { draw_id: draw.id, numbers: [1] } })).status).toBe(201);
  expect((await t.api('GET', '/api/admin/payments', { token: admin.token })).status).toBe(200);
  expect((await t.api('GET', '/api/ready')).body).toMatchObject({ database: true, redis: true });

  await proxy.stop();

  // A signed-in write, an admin read (its session is read from the database every time) and an
  // anonymous login: 503 with the body and header, never a 500 — and again, not only once.
  for (let round = 0; round < 2; round++) {
    expectDatabaseUnavailable(
      await t.api('POST', '/api/reservations', { token: buyer.token, body: { draw_id: draw.id, numbers: [2] } }),
      'reserve',
    );
    expectDatabaseUnavailable(await t.api('GET', '/api/admin/payments', { token: admin.token }), 'admin payments');
    expectDatabaseUnavailable(await t.api('POST', '/api/auth/login', { body: { email: buyer.email, password: buyer.password } }), 'login');
  }
  // Bad input is still a 400: validation needs no database.
  const bad = await t.api('POST', '/api/auth/login', { body: { email: 'não é e-mail' } });
  expect([bad.status, bad.body.error]).toEqual([400, 'validation_error']);
  // Readiness says the database is down; liveness does not look at it.
  const ready = await t.api('GET', '/api/ready');
  expect(ready.status).toBe(503);
  expect(ready.body).toMatchObject({ status: 'unavailable', database: false, redis: true });
  expect(ready.body.down).toContain('database');
  expect((await t.api('GET', '/api/health')).status).toBe(200);

  await proxy.start();

  // Back: the pool reconnects by itself, no restart.
  const again = await eventually(async () => {
    const r = await t.api('POST', '/api/reservations', { token: buyer.token, body: { draw_id: draw.id, numbers: [2] } });
    return r.status === 201 ? r : null;
  }, 'a reservation once the database is back');
  expect(again.body).toMatchObject({ draw_id: draw.id });
  expect((await t.api('GET', '/api/admin/payments', { token: admin.token })).status).toBe(200);
  const login = await t.api('POST', '/api/auth/login', { body: { email: buyer.email, password: buyer.password } });
  expect(login.status).toBe(200);
  await eventually(async () => (await t.api('GET', '/api/ready')).body.database === true, 'readiness to see the database');
  expect((await t.api('GET', '/api/ready')).status).toBe(200);
});

describe('which errors mean the database is unavailable (real driver errors)', () => {
  const pools: Knex[] = [];
  const pool = (url: URL, o: Partial<Knex.Config> = {}) => {
    const quiet = () => {};
    const k = knex({
      client: 'pg',
      connection: url.toString(),
      pool: { min: 0, max: 1 },
      log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet },
      ...o,
    });
    pools.push(k);
    return k;
  };
  const viaProxy = (p: TcpProxy) => {
    const u = new URL(t.services.config.databaseUrl);
    u.port = String(p.port);
    return u;
  };
  const caught = (p: PromiseLike<unknown>) =>
    Promise.resolve(p).then(
      () => {
        throw new Error('expected the query to fail');
      },
      (e: unknown) => e,
    );
  afterAll(async () => {
    for (const k of pools) await k.destroy();
  });

  test('a refused connection, a connection cut mid-query, the pool giving up and an admin shutdown are; query errors are not', async () => {
    // Straight to the database (not through the app's proxy), to watch and end sessions.
    const directUrl = new URL(t.services.config.databaseUrl);
    directUrl.port = new URL(process.env.TEST_ADMIN_DATABASE_URL!).port;
    const direct = pool(directUrl);
    const own = new TcpProxy(await freePort(), { host: '127.0.0.1', port: Number(new URL(process.env.TEST_ADMIN_DATABASE_URL!).port) });
    try {
      // Refused: nobody listens.
      const refused = await caught(pool(viaProxy(own)).raw('select 1'));
      expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
      expect(isDatabaseUnavailable(refused)).toBe(true);

      // Cut mid-query: the server behind the proxy went away while the query ran.
      await own.start();
      const cut = pool(viaProxy(own));
      const sleeping = caught(cut.raw('select pg_sleep(30)'));
      await eventually(
        async () => (await direct.raw(`select 1 from pg_stat_activity where query = 'select pg_sleep(30)'`)).rows.length > 0,
        'the query to run',
      );
      own.hang();
      const terminated = await sleeping;
      expect(isDatabaseUnavailable(terminated)).toBe(true);

      // The pool waited for a connection that never came (a server that stopped answering).
      const waited = await caught(pool(viaProxy(own), { acquireConnectionTimeout: 300 }).raw('select 1'));
      expect((waited as Error).name).toBe('KnexTimeoutError');
      expect(isDatabaseUnavailable(waited)).toBe(true);
    } finally {
      await own.stop();
    }

    // The server ended the session (57P01, as on a shutdown or failover).
    const victim = pool(directUrl);
    const killed = caught(victim.raw(`select pg_sleep(30) /* victim */`));
    await eventually(
      async () =>
        (
          await direct.raw(
            `select pg_terminate_backend(pid) as ok from pg_stat_activity where query like 'select pg_sleep(30) /* victim */%'`,
          )
        ).rows.length > 0,
      'the victim to be terminated',
    );
    const shutdown = await killed;
    expect((shutdown as { code?: string }).code).toBe('57P01');
    expect(isDatabaseUnavailable(shutdown)).toBe(true);

    // A working database refusing a query is not "unavailable".
    const db = direct;
    const syntax = await caught(db.raw('selec 1'));
    expect((syntax as { code?: string }).code).toBe('42601');
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    const missing = await caught(db('no_such_table').select('*'));
    expect(isDatabaseUnavailable(missing)).toBe(false);
    const unique = await caught(
      db.transaction(async (trx) => {
        await trx.raw('create temp table twice (x int primary key) on commit drop');
        await trx.raw('insert into twice values (1), (1)');
      }),
    );
    expect((unique as { code?: string }).code).toBe('23505');
    expect(isDatabaseUnavailable(unique)).toBe(false);
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
    // The SQLSTATEs the server sends while starting, stopping or losing a connection (as pg
    // raises them: an Error with the code), against ones a working server sends.
    const pgError = (code: string) => Object.assign(new Error(`select 1 - server said ${code}`), { code });
    for (const code of ['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'])
      expect([code, isDatabaseUnavailable(pgError(code))]).toEqual([code, true]);
    for (const code of ['40001', '40P01', '23505', '22P02', '42P01', '57014', '53300'])
      expect([code, isDatabaseUnavailable(pgError(code))]).toEqual([code, false]);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
