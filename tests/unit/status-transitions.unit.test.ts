/**
 * Status rules of payments and draws, pure: RULES P3 (the allowed payment transitions), P9 and P10
 * (the provider's holds and disputes), P11 (the re-check's decaying schedule), D6 (draw statuses:
 * open ⇄ closed by an admin, drawn is final) and the words answers use for them.
 */
import { RECHECK_WINDOW_DAYS, RECHECKED_STATUSES, TRANSITIONS, recheckDelayMs } from '../../src/payments/state';
import { pollDelayMs } from '../../src/payments/checks';
import { DRAW_STATUS_FILTERS, DRAW_STATUS_FILTER_NAMES, drawResultFor, drawStatusWord } from '../../src/draws/serializers';
import { StatusCommand } from '../../src/draws/admin-schemas';

const ALL = ['pending', 'authorized', 'approved', 'rejected', 'cancelled', 'expired', 'in_mediation', 'refunded', 'charged_back'] as const;
const can = (from: string, to: string) => (TRANSITIONS[from] ?? []).includes(to as never);

describe('payment transitions (RULES P3)', () => {
  test('every status has its list, and every target is a known status', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...ALL].sort());
    for (const targets of Object.values(TRANSITIONS)) for (const to of targets) expect(ALL).toContain(to);
  });

  test('no status moves to itself (a repeated notification is a no-op, not a transition)', () => {
    for (const s of ALL) expect([s, can(s, s)]).toEqual([s, false]);
  });

  test.each([
    ['pending', ['authorized', 'approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back']],
    ['authorized', ['approved', 'rejected', 'cancelled', 'refunded', 'charged_back']],
    ['approved', ['in_mediation', 'refunded', 'charged_back']],
    ['in_mediation', ['approved', 'refunded', 'charged_back']],
    ['expired', ['approved']],
    ['cancelled', ['approved']],
    ['rejected', ['approved']],
    ['refunded', []],
    ['charged_back', []],
  ])('%s → %j', (from, to) => {
    expect([...TRANSITIONS[from]].sort()).toEqual([...to].sort());
  });

  test('refunded and charged_back are final: nothing leaves them', () => {
    for (const s of ['refunded', 'charged_back']) for (const to of ALL) expect(can(s, to)).toBe(false);
  });

  test('a lapsed payment (expired, cancelled, rejected) can only be approved late (RULES P5)', () => {
    for (const s of ['expired', 'cancelled', 'rejected'])
      for (const to of ALL) expect([s, to, can(s, to)]).toEqual([s, to, to === 'approved']);
  });

  test('nothing goes back to pending, and only pending reaches authorized (RULES P9)', () => {
    for (const s of ALL) expect(can(s, 'pending')).toBe(false);
    expect(ALL.filter((s) => can(s, 'authorized'))).toEqual(['pending']);
  });

  test('a dispute opens only on an approved payment and ends approved, refunded or charged back (RULES P10)', () => {
    expect(ALL.filter((s) => can(s, 'in_mediation'))).toEqual(['approved']);
    expect([...TRANSITIONS.in_mediation].sort()).toEqual(['approved', 'charged_back', 'refunded']);
  });

  test('every status can reach a final one (no status is stuck forever)', () => {
    const reachesFinal = (s: string, seen = new Set<string>()): boolean => {
      if (s === 'refunded' || s === 'charged_back') return true;
      if (seen.has(s)) return false;
      seen.add(s);
      return TRANSITIONS[s].some((to) => reachesFinal(to, seen));
    };
    for (const s of ALL) expect([s, reachesFinal(s)]).toEqual([s, true]);
  });
});

describe('the re-check schedule (RULES P11)', () => {
  const HOUR = 3600_000;
  const DAY = 24 * HOUR;

  test('the statuses asked about again are those whose money the provider has or holds', () => {
    expect([...RECHECKED_STATUSES].sort()).toEqual(['approved', 'authorized', 'in_mediation']);
    expect(RECHECK_WINDOW_DAYS).toBe(180);
  });

  test.each([
    [0, HOUR],
    [DAY - 1, HOUR],
    [DAY, 6 * HOUR],
    [7 * DAY - 1, 6 * HOUR],
    [7 * DAY, DAY],
    [30 * DAY - 1, DAY],
    [30 * DAY, 7 * DAY],
    [100 * DAY, 7 * DAY],
    [175 * DAY, 5 * DAY + HOUR],
    [180 * DAY - HOUR, 2 * HOUR],
  ])('approved %i ms ago: asked again in %i ms', (age, delay) => {
    expect(recheckDelayMs(age, 'approved')).toBe(delay);
  });

  test('past the 180-day window an approved payment is not asked about again', () => {
    expect(recheckDelayMs(180 * DAY, 'approved')).toBeNull();
    expect(recheckDelayMs(400 * DAY, 'approved')).toBeNull();
  });

  test.each(['authorized', 'in_mediation'])('%s (held by the provider): hourly the first day, then daily, whatever the age', (s) => {
    expect(recheckDelayMs(0, s)).toBe(HOUR);
    expect(recheckDelayMs(DAY - 1, s)).toBe(HOUR);
    expect(recheckDelayMs(DAY, s)).toBe(DAY);
    expect(recheckDelayMs(365 * DAY, s)).toBe(DAY);
  });

  test('the delay never grows shorter as the payment ages, inside the window before its last week', () => {
    let prev = 0;
    for (let age = 0; age < 170 * DAY; age += 6 * HOUR) {
      const d = recheckDelayMs(age, 'approved')!;
      expect(d).toBeGreaterThanOrEqual(prev);
      prev = d;
    }
  });

  test('the last re-check lands inside the window, never after it', () => {
    for (let age = 150 * DAY; age < 180 * DAY; age += HOUR) {
      const d = recheckDelayMs(age, 'approved')!;
      expect(age + d).toBeLessThanOrEqual(180 * DAY + HOUR);
    }
  });
});

describe("a pending payment's polling", () => {
  test.each([
    [0, 5_000],
    [1, 10_000],
    [2, 20_000],
    [3, 40_000],
    [4, 60_000],
    [5, 60_000],
    [50, 60_000],
  ])('attempt %i waits %i ms', (attempt, ms) => {
    expect(pollDelayMs(attempt)).toBe(ms);
  });
});

describe('draw statuses (RULES D6)', () => {
  test('the database word drawn is sorteado in every answer; open and closed stay', () => {
    expect(drawStatusWord('open')).toBe('open');
    expect(drawStatusWord('closed')).toBe('closed');
    expect(drawStatusWord('drawn')).toBe('sorteado');
  });

  test.each([
    ['open', 'open'],
    ['aberto', 'open'],
    [' OPEN ', 'open'],
    ['Fechado', 'closed'],
    ['closed', 'closed'],
  ])('an admin may set %j: %s', (input, status) => {
    expect(StatusCommand.parse({ status: input })).toEqual({ status });
  });

  test.each(['drawn', 'sorteado', 'paused', '', 'abertos'])('an admin may not set %j (drawn is never set by hand)', (input) => {
    const r = StatusCommand.safeParse({ status: input });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toBe('Status inválido. Use open ou closed.');
  });

  test('a status that is not a text is refused with the same words', () => {
    const r = StatusCommand.safeParse({ status: 1 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toBe('Status inválido. Use open ou closed.');
  });

  test('the filters: closed lists decided draws too (a decided draw was closed first); sorteado only decided ones', () => {
    expect(DRAW_STATUS_FILTERS).toEqual({
      open: ['open'],
      aberto: ['open'],
      closed: ['closed', 'drawn'],
      fechado: ['closed', 'drawn'],
      sorteado: ['drawn'],
      drawn: ['drawn'],
    });
    expect([...DRAW_STATUS_FILTER_NAMES].sort()).toEqual(['aberto', 'closed', 'drawn', 'fechado', 'open', 'sorteado']);
  });

  describe("a draw's result for one caller (account spec §4 badges)", () => {
    test('undecided: the status itself, whoever asks', () => {
      for (const status of ['open', 'closed'] as const) {
        expect(drawResultFor({ status, winner_user_id: null }, 1)).toBe(status);
        expect(drawResultFor({ status, winner_user_id: 1 }, 1, false)).toBe(status);
      }
    });
    test('decided: contemplado for the winner, nao contemplado for the other participants, sorteado for the rest', () => {
      const d = { status: 'drawn' as const, winner_user_id: 7 };
      expect(drawResultFor(d, 7)).toBe('contemplado');
      expect(drawResultFor(d, 8)).toBe('nao contemplado');
      expect(drawResultFor(d, 8, false)).toBe('sorteado');
    });
    test('decided without a winner: every participant is nao contemplado', () => {
      const d = { status: 'drawn' as const, winner_user_id: null };
      expect(drawResultFor(d, 7)).toBe('nao contemplado');
      expect(drawResultFor(d, 7, false)).toBe('sorteado');
    });
  });
});
