import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { OPS_COOKIE } from '../../src/ops/service';
import { openOpsLink, opsCookieOf, rawRequest } from './support';

/**
 * /ops/logout ends the ops session on the server (the cookie, or a copy of it, stops working at
 * once, not when it expires); the queue dashboard is read-only: no call removes, cleans, retries,
 * promotes or empties anything (405), and bull-board shows the queue as read-only.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const raw = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(t, path, headers, method);

/** Follows a fresh signed link: the `cookie` header of the session it opens. */
async function session(token: string): Promise<Record<string, string>> {
  const { link, login } = await openOpsLink(t, token);
  expect(link.status).toBe(200);
  expect(login!.status).toBe(303);
  return { cookie: `${OPS_COOKIE}=${opsCookieOf(login!.headers.get('set-cookie'))}` };
}

test('logout ends the session on the server: the same cookie (a copy of it) is refused at once; a new link opens a new one', async () => {
  const admin = await createUser(t, { admin: true });
  const cookie = await session(admin.token);
  const copy = { ...cookie };
  expect((await raw('/ops/queues/api/queues', cookie)).status).toBe(200);
  const out = await raw('/ops/logout', cookie);
  expect(out.status).toBe(204);
  expect(out.headers.get('set-cookie')).toMatch(new RegExp(`${OPS_COOKIE}=;.*Max-Age=0`));
  for (const p of ['/ops/queues', '/ops/queues/api/queues', '/ops/logout']) {
    const r = await raw(p, copy);
    expect([p, r.status, r.body.error]).toEqual([p, 401, 'unauthenticated']);
    expect(r.body.message).toBe('Sessão do painel de filas encerrada. Abra-o de novo pelo console de administração.');
  }
  // Another session of the same admin is not affected, and a new link works.
  const other = await session(admin.token);
  expect((await raw('/ops/queues/api/queues', other)).status).toBe(200);
  expect((await raw('/ops/queues/api/queues', copy)).status).toBe(401);
});

test('logout: anonymous 401, a customer 403 (no session to end)', async () => {
  const customer = await createUser(t);
  expect((await raw('/ops/logout')).status).toBe(401);
  expect((await raw('/ops/logout', { authorization: `Bearer ${customer.token}` })).status).toBe(403);
});

test('the dashboard is read-only: removing, cleaning, retrying, promoting or emptying answers 405 and the jobs stay', async () => {
  const admin = await createUser(t, { admin: true });
  const cookie = await session(admin.token);
  const job = await t.services.queue.raw.add('mail.send', { outboxId: 999_999 } as never, { delay: 3_600_000 });
  const id = String(job.id);
  const list = await raw('/ops/queues/api/queues?activeQueue=main&status=delayed', cookie);
  expect(list.status).toBe(200);
  expect(list.body.queues.find((q: { name: string }) => q.name === 'main')).toMatchObject({ readOnlyMode: true });
  const writes: Array<[string, string]> = [
    ['PUT', `/ops/queues/api/queues/main/${id}/clean`],
    ['PUT', `/ops/queues/api/queues/main/${id}/promote`],
    ['PUT', `/ops/queues/api/queues/main/${id}/retry`],
    ['PUT', '/ops/queues/api/queues/main/clean/delayed'],
    ['PUT', '/ops/queues/api/queues/main/retry/failed'],
    ['PUT', '/ops/queues/api/queues/main/promote'],
    ['PUT', '/ops/queues/api/queues/main/empty'],
    ['PUT', '/ops/queues/api/queues/main/obliterate'],
    ['PUT', '/ops/queues/api/queues/main/pause'],
    ['PUT', '/ops/queues/api/queues/pause'],
    ['PUT', '/ops/queues/api/queues/main/job-schedulers/mail-sweep/remove'],
    ['POST', '/ops/queues/api/queues/main/add'],
    ['DELETE', `/ops/queues/api/queues/main/${id}`],
    ['PATCH', `/ops/queues/api/queues/main/${id}/update-data`],
  ];
  for (const [method, p] of writes) {
    const r = await raw(p, cookie, method);
    expect([method, p, r.status, r.body.error]).toEqual([method, p, 405, 'read_only']);
  }
  expect(await t.services.queue.raw.getJobState(id)).toBe('delayed');
  expect(await t.services.queue.raw.isPaused()).toBe(false);
  await job.remove();
});
