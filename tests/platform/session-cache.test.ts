import { UserReadCache } from '../../src/platform/user-read-cache';
import { SessionCache } from '../../src/platform/session-cache';

/** The session cache alone (platform/session-cache.ts), on a clock of its own. */
describe('SessionCache', () => {
  let now = 1_000_000;
  const clock = () => now;
  let loads = 0;
  const loader =
    (userId: number, expiresAt = now + 60_000) =>
    async () => {
      loads++;
      return { value: { userId, n: loads }, userId, expiresAt };
    };
  beforeEach(() => {
    now = 1_000_000;
    loads = 0;
  });

  test('not trusted (no live bus): every lookup reads the database', async () => {
    const c = new SessionCache<{ userId: number; n: number }>({ now: clock });
    await c.get('a', loader(1));
    await c.get('a', loader(1));
    expect([loads, c.size]).toEqual([2, 0]);
  });

  test('trusted: a hit within the TTL, a miss past it or past the session’s own expiry', async () => {
    const c = new SessionCache<{ userId: number; n: number }>({ now: clock, ttlMs: 5000 });
    c.trustWhile(() => true);
    expect(await c.get('a', loader(1))).toEqual({ userId: 1, n: 1 });
    now += 4999;
    expect(await c.get('a', loader(1))).toEqual({ userId: 1, n: 1 });
    now += 1;
    expect(await c.get('a', loader(1))).toEqual({ userId: 1, n: 2 });
    // A session that expires in 1 s is not served past that second.
    await c.get('b', loader(2, now + 1000));
    now += 1000;
    expect(await c.get('b', loader(2))).toEqual({ userId: 2, n: 4 });
  });

  test('userChanged drops every session of that user only, and tells the listeners', async () => {
    const c = new SessionCache<{ userId: number; n: number }>({ now: clock });
    c.trustWhile(() => true);
    const told: number[] = [];
    c.onChange(({ userId }) => void told.push(userId));
    await c.get('a1', loader(1));
    await c.get('a2', loader(1));
    await c.get('b', loader(2));
    await c.userChanged(1);
    expect([c.size, told]).toEqual([1, [1]]);
    c.applyRemote({ userId: 2 });
    expect(c.size).toBe(0);
    expect(told).toEqual([1]); // a remote change is not passed on
  });

  test('a lookup that started before a change never lands; the bus going untrusted stops hits at once', async () => {
    const c = new SessionCache<{ userId: number; n: number }>({ now: clock });
    let live = true;
    c.trustWhile(() => live);
    let release!: () => void;
    const slow = c.get('a', async () => {
      await new Promise<void>((r) => (release = r));
      return { value: { userId: 1, n: 0 }, userId: 1, expiresAt: now + 60_000 };
    });
    await c.userChanged(1);
    release();
    await slow;
    expect(c.size).toBe(0);
    await c.get('a', loader(1));
    expect(c.size).toBe(1);
    live = false;
    await c.get('a', loader(1));
    expect(loads).toBe(2);
    live = true;
    c.dropAll();
    expect(c.size).toBe(0);
  });

  test('a null lookup (unknown or revoked token) is never cached', async () => {
    const c = new SessionCache<{ userId: number }>({ now: clock });
    c.trustWhile(() => true);
    expect(await c.get('x', async () => null)).toBeNull();
    expect(c.size).toBe(0);
  });
});

describe('UserReadCache', () => {
  let now = 5_000_000;
  const clock = () => now;
  const body = async (c: Promise<{ json: string }>) => JSON.parse((await c).json);

  test('per user and URL, ≤ 1 s, single-flight; errors are not kept', async () => {
    const c = new UserReadCache({ now: clock });
    let builds = 0;
    const build = async () => ({ n: ++builds });
    const [a, b] = await Promise.all([body(c.get(1, '/api/me', build)), body(c.get(1, '/api/me', build))]);
    expect([a, b, builds]).toEqual([{ n: 1 }, { n: 1 }, 1]);
    // Another user never gets user 1's answer.
    expect(await body(c.get(2, '/api/me', build))).toEqual({ n: 2 });
    now += 999;
    expect(await body(c.get(1, '/api/me', build))).toEqual({ n: 1 });
    now += 1;
    expect(await body(c.get(1, '/api/me', build))).toEqual({ n: 3 });
    await expect(c.get(1, '/api/x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await body(c.get(1, '/api/x', build))).toEqual({ n: 4 });
  });

  test('dropUser drops that user’s answers only; a build in flight at the drop never lands', async () => {
    const c = new UserReadCache({ now: clock });
    await c.get(1, '/a', async () => 1);
    await c.get(2, '/a', async () => 2);
    c.dropUser(1);
    expect(c.size).toBe(1);
    let release!: () => void;
    const slow = c.get(3, '/a', () => new Promise((r) => (release = () => r('old'))));
    c.dropUser(3);
    release();
    expect(await body(slow as never)).toBe('old'); // its own caller gets it…
    expect(await body(c.get(3, '/a', async () => 'new'))).toBe('new'); // …nobody else does
  });

  test('a session change or a data change reaches it through the session cache (here and from the bus)', async () => {
    const sessions = new SessionCache<{ id: number }>({ now: clock });
    const reads = new UserReadCache({ now: clock });
    sessions.alsoDrop((id) => reads.dropUser(id));
    sessions.trustWhile(() => true);
    await sessions.get('tok', async () => ({ value: { id: 7 }, userId: 7, expiresAt: now + 60_000 }));
    await reads.get(7, '/api/payments/me', async () => ({ items: [] }));
    await sessions.userDataChanged(7);
    expect([reads.size, sessions.size]).toEqual([0, 1]); // the data went, the session stays
    await reads.get(7, '/api/payments/me', async () => ({ items: [] }));
    sessions.applyRemote({ userId: 7 });
    expect([reads.size, sessions.size]).toEqual([0, 0]);
  });
});
