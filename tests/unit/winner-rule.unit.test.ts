/**
 * The winner rule, RULES W2 and W3 (src/results/winner-rule.ts): the last drawn number of the
 * Lotomania contest wins when it is sold on the board; otherwise walk back through the draw order
 * to the last drawn number that is sold; voided and refunded sales never win. Pure: no servers.
 */
import { decideWinner, lotomaniaNumbersProblem, WALK_REASON_TEXT, type SoldNumber } from '../../src/results/winner-rule';
import { walkOf } from '../../src/results/model';
import { previousScheduledContest } from '../../src/results/time';
import { distinct, prng } from './prng';

/** Twenty distinct numbers 00-99 ending with `last` (the draw order's last one). */
const endingWith = (last: number, others: number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]) => [
  ...others.filter((n) => n !== last).slice(0, 19),
  last,
];
const soldTo = (userId: number, ...ns: number[]): SoldNumber[] => ns.map((n) => ({ n, user_id: userId }));

describe('the shape of a Lotomania result', () => {
  test('twenty distinct numbers 00-99 are a result', () => {
    expect(lotomaniaNumbersProblem(distinct(prng(1), 100, 20))).toBeNull();
    expect(lotomaniaNumbersProblem([...Array(20).keys()].map((i) => 99 - i))).toBeNull();
  });

  test.each([
    ['19 numbers', [...Array(19).keys()], 'Informe exatamente 20 números (recebidos: 19).'],
    ['21 numbers', [...Array(21).keys()], 'Informe exatamente 20 números (recebidos: 21).'],
    ['no number', [], 'Informe exatamente 20 números (recebidos: 0).'],
    ['100 is off the card', [...Array(19).keys(), 100], 'Cada número deve estar entre 00 e 99.'],
    ['a negative number', [-1, ...Array(19).keys()].map((n, i) => (i === 0 ? -1 : n + 1)), 'Cada número deve estar entre 00 e 99.'],
    ['a fraction', [0.5, ...[...Array(19).keys()].map((n) => n + 1)], 'Cada número deve estar entre 00 e 99.'],
    ['a repeated number', [...[...Array(19).keys()], 18], 'Os 20 números devem ser distintos.'],
  ])('%s is refused', (_what, numbers, problem) => {
    expect(lotomaniaNumbersProblem(numbers)).toBe(problem);
    expect(() => decideWinner({ numbers, totalNumbers: 100, sold: [] })).toThrow(`decideWinner: ${problem}`);
  });
});

describe('decideWinner', () => {
  test('the last drawn number wins when it is sold: nothing passed over', () => {
    const numbers = endingWith(42);
    expect(decideWinner({ numbers, totalNumbers: 100, sold: soldTo(7, 42, 3) })).toEqual({
      winning_number: 42,
      winner_user_id: 7,
      walk: [],
    });
  });

  test('the last drawn number not sold: the walk goes back to the last drawn number that is', () => {
    const numbers = [...Array(17).keys()].map((n) => n + 10).concat([5, 6, 7]); // …, 26, 5, 6, 7
    const d = decideWinner({ numbers, totalNumbers: 100, sold: soldTo(3, 5) });
    expect(d).toEqual({
      winning_number: 5,
      winner_user_id: 3,
      walk: [
        { n: 7, reason: 'not_sold' },
        { n: 6, reason: 'not_sold' },
      ],
    });
  });

  test('numbers beyond the board are out of range (57 on a 50-number board), whoever "owns" them', () => {
    const numbers = [...Array(18).keys()].concat([49, 57]);
    const d = decideWinner({ numbers, totalNumbers: 50, sold: [...soldTo(1, 49), ...soldTo(2, 57)] });
    expect(d).toEqual({ winning_number: 49, winner_user_id: 1, walk: [{ n: 57, reason: 'out_of_range' }] });
  });

  test('the board size is a strict bound: number N-1 is on an N-number board, N is not', () => {
    const numbers = [...Array(18).keys()].map((n) => n + 60).concat([9, 10]);
    expect(decideWinner({ numbers, totalNumbers: 10, sold: soldTo(4, 9, 10) })).toEqual({
      winning_number: 9,
      winner_user_id: 4,
      walk: [{ n: 10, reason: 'out_of_range' }],
    });
    expect(decideWinner({ numbers, totalNumbers: 11, sold: soldTo(4, 9, 10) })).toMatchObject({ winning_number: 10, walk: [] });
  });

  test('voided numbers (refunded or charged back) are named voided in the walk and never win', () => {
    const numbers = [...Array(17).keys()].concat([30, 31, 32]);
    const d = decideWinner({ numbers, totalNumbers: 100, sold: soldTo(8, 30), voided: [32, 31] });
    expect(d).toEqual({
      winning_number: 30,
      winner_user_id: 8,
      walk: [
        { n: 32, reason: 'voided' },
        { n: 31, reason: 'voided' },
      ],
    });
  });

  test('a voided number that is also in sold counts as sold: the caller passes only the sales that count', () => {
    const numbers = endingWith(12);
    expect(decideWinner({ numbers, totalNumbers: 100, sold: soldTo(5, 12), voided: [12] })).toMatchObject({
      winning_number: 12,
      winner_user_id: 5,
      walk: [],
    });
  });

  test('nothing sold: no winner, all twenty passed over, last drawn first', () => {
    const numbers = distinct(prng(9), 100, 20);
    const d = decideWinner({ numbers, totalNumbers: 100, sold: [] });
    expect(d.winning_number).toBeNull();
    expect(d.winner_user_id).toBeNull();
    expect(d.walk.map((s) => s.n)).toEqual([...numbers].reverse());
    expect(d.walk.every((s) => s.reason === 'not_sold')).toBe(true);
  });

  test('a small board none of whose numbers was drawn: no winner, every step out of range or not sold', () => {
    const numbers = [...Array(20).keys()].map((n) => n + 40);
    const d = decideWinner({ numbers, totalNumbers: 40, sold: soldTo(1, ...Array(40).keys()) });
    expect(d).toMatchObject({ winning_number: null, winner_user_id: null });
    expect(d.walk).toHaveLength(20);
    expect(new Set(d.walk.map((s) => s.reason))).toEqual(new Set(['out_of_range']));
  });

  test('the order of the sold list does not matter; the draw order does', () => {
    const numbers = [...Array(18).keys()].concat([70, 80]);
    const sold = [...soldTo(1, 70), ...soldTo(2, 80)];
    expect(decideWinner({ numbers, totalNumbers: 100, sold }).winner_user_id).toBe(2);
    expect(decideWinner({ numbers, totalNumbers: 100, sold: [...sold].reverse() }).winner_user_id).toBe(2);
    const swapped = [...Array(18).keys()].concat([80, 70]);
    expect(decideWinner({ numbers: swapped, totalNumbers: 100, sold }).winner_user_id).toBe(1);
  });

  test('every reason has its Portuguese words', () => {
    expect(WALK_REASON_TEXT).toEqual({
      out_of_range: 'fora do tabuleiro',
      not_sold: 'não vendido',
      voided: 'anulado (pagamento estornado)',
    });
  });

  describe('500 generated draws: the rule, restated', () => {
    const rnd = prng(2026);
    const cases = Array.from({ length: 500 }, (_, i) => {
      const totalNumbers = [10, 25, 50, 80, 100][i % 5];
      const numbers = distinct(rnd, 100, 20);
      const onBoard = [...Array(totalNumbers).keys()];
      const sold = onBoard.filter(() => rnd() < [0, 0.05, 0.3, 0.9][i % 4]).map((n) => ({ n, user_id: 1 + (n % 7) }));
      const soldSet = new Set(sold.map((s) => s.n));
      const voided = onBoard.filter((n) => !soldSet.has(n) && rnd() < 0.2);
      return { numbers, totalNumbers, sold, voided };
    });

    test('the winner is the last drawn number that is on the board and sold, owned by its buyer', () => {
      for (const c of cases) {
        const d = decideWinner(c);
        const owners = new Map(c.sold.map((s) => [s.n, s.user_id]));
        const expected = [...c.numbers].reverse().find((n) => n < c.totalNumbers && owners.has(n)) ?? null;
        expect(d.winning_number).toBe(expected);
        expect(d.winner_user_id).toBe(expected === null ? null : owners.get(expected));
      }
    });

    test('the walk is exactly the numbers drawn after the winner, last first, each with its reason', () => {
      for (const c of cases) {
        const d = decideWinner(c);
        const after = d.winning_number === null ? c.numbers : c.numbers.slice(c.numbers.indexOf(d.winning_number) + 1);
        expect(d.walk.map((s) => s.n)).toEqual([...after].reverse());
        for (const s of d.walk)
          expect(s.reason).toBe(s.n >= c.totalNumbers ? 'out_of_range' : c.voided.includes(s.n) ? 'voided' : 'not_sold');
      }
    });

    test('walkOf rebuilds the same walk from a stored decision (the public result page)', () => {
      for (const c of cases) {
        const d = decideWinner(c);
        expect(walkOf(c.numbers, d.winning_number, c.totalNumbers, c.voided)).toEqual(d.walk);
      }
    });
  });
});

describe('previousScheduledContest: the last Mon/Wed/Fri 20:00 Brasília slot strictly before the day', () => {
  // Brasília is UTC−3 all year: 20:00 there is 23:00 UTC.
  test.each([
    // 2026-11-25 is a Wednesday.
    ['a Wednesday afternoon → the Monday before', '2026-11-25T15:00:00Z', '2026-11-23T23:00:00.000Z'],
    ['a Wednesday after the draw → still the Monday (strictly before the day)', '2026-11-25T23:30:00Z', '2026-11-23T23:00:00.000Z'],
    ['a Thursday → the Wednesday', '2026-11-26T12:00:00Z', '2026-11-25T23:00:00.000Z'],
    ['a Saturday → the Friday', '2026-11-28T12:00:00Z', '2026-11-27T23:00:00.000Z'],
    ['a Sunday → the Friday', '2026-11-29T12:00:00Z', '2026-11-27T23:00:00.000Z'],
    ['a Monday → the Friday before', '2026-11-30T12:00:00Z', '2026-11-27T23:00:00.000Z'],
    ['a Tuesday → the Monday', '2026-12-01T12:00:00Z', '2026-11-30T23:00:00.000Z'],
    ['01:00 UTC on a Thursday is still Wednesday in Brasília → the Monday', '2026-11-26T01:00:00Z', '2026-11-23T23:00:00.000Z'],
    ['across a year', '2027-01-01T12:00:00Z', '2026-12-30T23:00:00.000Z'],
  ])('%s', (_what, at, slot) => {
    expect(previousScheduledContest(new Date(at)).toISOString()).toBe(slot);
  });
});
