import fs from 'node:fs';
import path from 'node:path';
import { decideWinner, lotomaniaNumbersProblem } from '../../src/results/winner-rule';

/**
 * The winner rule (RULES W2) against the 100 real Lotomania contests 2600-2699 (in draw order,
 * tests/fixtures/lotomania-2600-2699.json, a copy of ../shared/data) and constructed edge cases.
 */
const contests: Record<string, string[]> = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../fixtures/lotomania-2600-2699.json'), 'utf8'),
);
const numbersOf = (contest: number) => contests[String(contest)].map(Number);
const soldTo = (userOf: (n: number) => number | null, total = 100) =>
  Array.from({ length: total }, (_, n) => ({ n, user_id: userOf(n) })).filter(
    (s): s is { n: number; user_id: number } => s.user_id !== null,
  );

describe('real contests', () => {
  test('the fixture holds 100 valid results', () => {
    expect(Object.keys(contests)).toHaveLength(100);
    for (const [c, nums] of Object.entries(contests)) {
      expect(nums.every((x) => /^\d{2}$/.test(x))).toBe(true);
      expect(lotomaniaNumbersProblem(nums.map(Number))).toBeNull();
      expect(Number(c)).toBeGreaterThanOrEqual(2600);
    }
  });

  test('a sold-out 100-number board: the last drawn number wins, nothing is passed over', () => {
    for (const c of Object.keys(contests).map(Number)) {
      const nums = numbersOf(c);
      const d = decideWinner({ numbers: nums, totalNumbers: 100, sold: soldTo((n) => 1000 + n) });
      expect(d).toEqual({ winning_number: nums[19], winner_user_id: 1000 + nums[19], walk: [] });
    }
  });

  test('contest 2600 (… 43, 50): 50 wins; with 50 unsold the walk goes back to 43', () => {
    const nums = numbersOf(2600);
    expect(nums.slice(-3)).toEqual([11, 43, 50]);
    expect(decideWinner({ numbers: nums, totalNumbers: 100, sold: soldTo((n) => n) }).winning_number).toBe(50);
    const d = decideWinner({ numbers: nums, totalNumbers: 100, sold: soldTo((n) => (n === 50 ? null : 7)) });
    expect(d).toEqual({ winning_number: 43, winner_user_id: 7, walk: [{ n: 50, reason: 'not_sold' }] });
  });

  test('only the even numbers sold: the last even number drawn wins, every odd one after it is in the walk', () => {
    for (const c of Object.keys(contests).map(Number)) {
      const nums = numbersOf(c);
      const d = decideWinner({ numbers: nums, totalNumbers: 100, sold: soldTo((n) => (n % 2 === 0 ? 2 : null)) });
      const lastEven = [...nums].reverse().find((n) => n % 2 === 0) ?? null;
      expect(d.winning_number).toBe(lastEven);
      const after = lastEven === null ? [...nums].reverse() : [...nums].reverse().slice(0, [...nums].reverse().indexOf(lastEven));
      expect(d.walk).toEqual(after.map((n) => ({ n, reason: 'not_sold' })));
    }
  });

  test('a 50-number board: drawn numbers ≥ 50 are passed over as out of range', () => {
    const nums = numbersOf(2603); // … 20, 82, 08, 78
    expect(nums.slice(-4)).toEqual([20, 82, 8, 78]);
    const d = decideWinner({ numbers: nums, totalNumbers: 50, sold: soldTo((n) => n + 1, 50) });
    expect(d).toEqual({ winning_number: 8, winner_user_id: 9, walk: [{ n: 78, reason: 'out_of_range' }] });
  });
});

describe('edge cases', () => {
  const nums = numbersOf(2601); // last: 66, 68, 54

  test('last number unsold: the previous sold one wins', () => {
    const d = decideWinner({
      numbers: nums,
      totalNumbers: 100,
      sold: [
        { n: 68, user_id: 5 },
        { n: 66, user_id: 6 },
      ],
    });
    expect(d).toEqual({ winning_number: 68, winner_user_id: 5, walk: [{ n: 54, reason: 'not_sold' }] });
  });

  test('all twenty unsold: no winner, the walk holds all twenty (last drawn first)', () => {
    const drawnSet = new Set(nums);
    const sold = soldTo((n) => (drawnSet.has(n) ? null : 3));
    expect(sold).toHaveLength(80);
    const d = decideWinner({ numbers: nums, totalNumbers: 100, sold });
    expect(d.winning_number).toBeNull();
    expect(d.winner_user_id).toBeNull();
    expect(d.walk.map((s) => s.n)).toEqual([...nums].reverse());
    expect(d.walk.every((s) => s.reason === 'not_sold')).toBe(true);
  });

  test('a number ≥ total_numbers never wins, even if something claims it is sold', () => {
    const d = decideWinner({
      numbers: nums,
      totalNumbers: 60,
      sold: [
        { n: 54, user_id: 1 },
        { n: 68, user_id: 2 },
        { n: 66, user_id: 3 },
      ],
    });
    expect(d).toEqual({ winning_number: 54, winner_user_id: 1, walk: [] });
    // Twenty numbers 80-99 on a 50-number board, with a (corrupt) sold set naming them: no winner.
    const high = Array.from({ length: 20 }, (_, i) => 80 + i);
    const small = decideWinner({ numbers: high, totalNumbers: 50, sold: high.map((n) => ({ n, user_id: 4 })) });
    expect(small.winning_number).toBeNull();
    expect(small.walk).toHaveLength(20);
    expect(small.walk.every((s) => s.reason === 'out_of_range')).toBe(true);
  });

  test('a refunded number is left out of the sold set by the caller: it is walked over as not sold', () => {
    // soldNumbersThatCount drops refunded / charged-back sales; 54 was refunded.
    const sold = soldTo((n) => (n === 54 ? null : 8));
    const d = decideWinner({ numbers: nums, totalNumbers: 100, sold });
    expect(d).toEqual({ winning_number: 68, winner_user_id: 8, walk: [{ n: 54, reason: 'not_sold' }] });
  });

  test('invalid inputs are refused', () => {
    expect(() => decideWinner({ numbers: nums.slice(1), totalNumbers: 100, sold: [] })).toThrow(/20 números/);
    expect(() => decideWinner({ numbers: [...nums.slice(1), nums[1]], totalNumbers: 100, sold: [] })).toThrow(/distintos/);
    expect(() => decideWinner({ numbers: [...nums.slice(1), 100], totalNumbers: 100, sold: [] })).toThrow(/00 e 99/);
    expect(lotomaniaNumbersProblem([...nums.slice(1), -1])).toMatch(/00 e 99/);
  });
});
