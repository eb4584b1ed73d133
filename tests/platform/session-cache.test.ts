import { SessionCache } from '../../src/platform/session-cache';

/** The session cache alone (platform/session-cache.ts), on a clock of its own. */
describe('SessionCache', () => {
  let now = 1_000_000;
  const clock = () => now;
  let loads = 0;
  const loader = (userId: number, expiresAt = now + 60_000) => async () => {
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
