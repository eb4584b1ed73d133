import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { VALID_CPF, tokenize } from './fixtures';

/**
 * A captive number belongs to one active profile at a time (RULES A1): 20 users save
 * overlapping sets of numbers at once, with real parallel HTTP requests. Every answer is 200 or
 * 409 with the conflicting numbers; each number ends with one owner, and a 409's user keeps
 * nothing of what it asked for.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => t?.close());

test('20 users saving overlapping numbers at once: each number ends with one owner', async () => {
  const users = await Promise.all(Array.from({ length: 20 }, () => createUser(t)));
  const tokens = await Promise.all(users.map((u) => tokenize(t, u.token)));
  // User i wants i, i+1, i+2 (mod 22) and 60: every number is wanted by up to 3 users, 60 by all.
  const wants = users.map((_, i) => [i % 22, (i + 1) % 22, (i + 2) % 22, 60]);
  const answers = await Promise.all(
    users.map((u, i) =>
      t.api('POST', '/api/me/autopay', {
        token: u.token,
        body: { active: true, numbers: wants[i], holder_name: 'TITULAR', doc_number: VALID_CPF, card_token: tokens[i].id },
      }),
    ),
  );
  const statuses = answers.map((a) => a.status);
  expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
  const winners = answers.map((a, i) => (a.status === 200 ? i : -1)).filter((i) => i >= 0);
  // 60 is wanted by everyone: exactly one save wins.
  expect(winners).toHaveLength(1);
  for (const [i, a] of answers.entries()) {
    if (a.status === 409) {
      expect(a.body.error).toBe('numbers_conflict');
      expect(a.body.conflicts.length).toBeGreaterThan(0);
      expect(wants[i]).toEqual(expect.arrayContaining(a.body.conflicts));
    }
  }
  const rows: Array<{ n: number; user_id: number }> = await t.services
    .db('autopay_captive_numbers as c')
    .join('autopay_profiles as p', 'p.id', 'c.profile_id')
    .where('c.active', true)
    .select('c.n', 'p.user_id');
  const owners = new Map<number, Set<number>>();
  for (const r of rows) owners.set(r.n, (owners.get(r.n) ?? new Set()).add(Number(r.user_id)));
  for (const [n, o] of owners) expect([n, o.size]).toEqual([n, 1]);
  const w = winners[0];
  expect(
    rows
      .filter((r) => Number(r.user_id) === users[w].user.id)
      .map((r) => r.n)
      .sort((a, b) => a - b),
  ).toEqual([...wants[w]].sort((a, b) => a - b));
  // Losers keep nothing active.
  for (const [i, u] of users.entries()) if (i !== w) expect(rows.filter((r) => Number(r.user_id) === u.user.id)).toHaveLength(0);

  // A second round without the shared 60: disjoint winners; still one owner per number.
  const round2 = await Promise.all(
    users.map(async (u, i) => {
      if (i === w) return null;
      const tok = await tokenize(t, u.token);
      return t.api('POST', '/api/me/autopay', {
        token: u.token,
        body: {
          active: true,
          numbers: [((i * 3) % 40) + 20, ((i * 3 + 1) % 40) + 20],
          holder_name: 'TITULAR',
          doc_number: VALID_CPF,
          card_token: tok.id,
        },
      });
    }),
  );
  expect(round2.filter((a) => a && a.status === 200).length).toBeGreaterThan(1);
  const rows2: Array<{ n: number; c: number }> = await t.services
    .db('autopay_captive_numbers')
    .where({ active: true })
    .groupBy('n')
    .select('n', t.services.db.raw('count(*)::int AS c'));
  expect(rows2.every((r) => r.c === 1)).toBe(true);
  const claims = await t.api('GET', '/api/autopay/claims', { token: users[w].token });
  expect(claims.body.mine.sort((a: number, b: number) => a - b)).toEqual([...wants[w]].sort((a, b) => a - b));
}, 60_000);
