import {
  MAX_SELECTION,
  conflictsOf,
  countBoard,
  drawSourceOf,
  formatNumbers,
  isSoldOut,
  maxSelectionOf,
  ownNumbers,
  pad2,
  statusOf,
  toggleNumber,
  freeNumbers,
  randomIndex,
  surpriseMax,
  surpriseNumbers,
  unavailableAmong,
  type Board,
} from '../../web/src/pages/numbers/board';
import type { NumberStatus } from '../../web/src/api/types';
import { moveFocus } from '../../web/src/components/board/keys';
import type { ReservationStatus } from '../../src/shared/api/draws';

/** A 100-number board with the given statuses; every other number available. */
function board(statuses: Record<number, NumberStatus> = {}, total = 100): Board {
  return {
    draw_id: 1,
    status: 'open',
    total_numbers: total,
    numbers: Array.from({ length: total }, (_, n) => ({ n, status: statuses[n] ?? 'available', initials: null })),
  };
}

describe('number labels', () => {
  test('two digits, sorted without repeats', () => {
    expect(pad2(7)).toBe('07');
    expect(pad2(42)).toBe('42');
    expect(formatNumbers([7, 1, 7, 42])).toBe('01, 07, 42');
    expect(formatNumbers([])).toBe('');
  });
});

describe('toggleNumber (clicking a cell)', () => {
  const free = { status: 'available' as const, total: 100, remaining: 5, maxSelection: 10 };

  test('adds an available number, keeping the selection sorted', () => {
    expect(toggleNumber([42], 7, free)).toEqual({ kind: 'changed', selected: [7, 42] });
  });

  test('a selected number toggles off, whatever its status now', () => {
    expect(toggleNumber([7, 42], 42, free)).toEqual({ kind: 'changed', selected: [7] });
    expect(toggleNumber([7], 7, { ...free, status: 'reserved' })).toEqual({ kind: 'changed', selected: [] });
  });

  test.each<[string, number, NumberStatus]>([
    ['reserved', 3, 'reserved'],
    ['sold', 3, 'sold'],
    ['taken', 3, 'taken'],
    ['below the board', -1, 'available'],
    ['past the board', 100, 'available'],
    ['not a whole number', 2.5, 'available'],
  ])('ignores a %s number', (_what, n, status) => {
    expect(toggleNumber([], n, { ...free, status })).toEqual({ kind: 'ignored' });
  });

  test('stops at the remaining allowance', () => {
    expect(toggleNumber([1, 2], 3, { ...free, remaining: 2 })).toEqual({ kind: 'limit' });
    expect(toggleNumber([], 3, { ...free, remaining: 0 })).toEqual({ kind: 'limit' });
  });

  test('stops at the per-selection maximum', () => {
    expect(toggleNumber([1, 2, 3], 4, { ...free, remaining: 20, maxSelection: 3 })).toEqual({ kind: 'max', max: 3 });
  });

  test('the allowance comes first when both are reached', () => {
    expect(toggleNumber([1, 2], 3, { ...free, remaining: 2, maxSelection: 2 })).toEqual({ kind: 'limit' });
  });

  test('anonymous visitors (allowance unknown) are held only by the maximum', () => {
    expect(toggleNumber([1, 2], 3, { ...free, remaining: null })).toEqual({ kind: 'changed', selected: [1, 2, 3] });
    const ten = Array.from({ length: 10 }, (_, i) => i);
    expect(toggleNumber(ten, 50, { ...free, remaining: null })).toEqual({ kind: 'max', max: 10 });
  });
});

describe('maxSelectionOf', () => {
  test.each<[number | null | undefined, number]>([
    [null, MAX_SELECTION],
    [undefined, MAX_SELECTION],
    [0, MAX_SELECTION],
    [-3, MAX_SELECTION],
    [Number.NaN, MAX_SELECTION],
    [1, 1],
    [5, 5],
    [3.7, 3],
    [10, 10],
    [25, 10],
  ])('%p → %p', (configured, max) => {
    expect(maxSelectionOf(configured)).toBe(max);
  });
});

describe('board state', () => {
  test('statusOf: a number missing from the board is available', () => {
    const b = board({ 3: 'sold' });
    expect(statusOf(b, 3)).toBe('sold');
    expect(statusOf(b, 4)).toBe('available');
    expect(statusOf({ ...b, numbers: [] }, 3)).toBe('available');
    expect(statusOf(null, 3)).toBe('available');
  });

  test('countBoard: reserved apart, sold and taken both unavailable', () => {
    expect(countBoard(board({ 1: 'reserved', 2: 'sold', 3: 'taken', 4: 'reserved' }))).toEqual({
      total: 100,
      available: 96,
      reserved: 2,
      unavailable: 2,
    });
  });

  test('countBoard: without total_numbers the board size is the list length', () => {
    expect(countBoard({ ...board({ 0: 'sold' }, 10), total_numbers: 0 })).toEqual({ total: 10, available: 9, reserved: 0, unavailable: 1 });
  });

  test('isSoldOut: every number sold or taken, none reserved or free', () => {
    const all = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [n, n % 2 ? 'sold' : 'taken'])) as Record<number, NumberStatus>;
    expect(isSoldOut(board(all, 10))).toBe(true);
    expect(isSoldOut(board({ ...all, 4: 'reserved' }, 10))).toBe(false);
    expect(isSoldOut(board({ ...all, 4: 'available' }, 10))).toBe(false);
    // A partial list is not a sold-out board.
    expect(isSoldOut({ ...board(all, 10), total_numbers: 100 })).toBe(false);
    expect(isSoldOut({ ...board({}, 10), numbers: [] })).toBe(false);
  });

  test('unavailableAmong: picks the board took meanwhile, except those held by this visitor', () => {
    const b = board({ 2: 'reserved', 3: 'sold', 4: 'reserved', 5: 'taken' });
    expect(unavailableAmong(b, [5, 1, 2, 3, 4])).toEqual([2, 3, 4, 5]);
    expect(unavailableAmong(b, [1, 2, 3, 4], [2])).toEqual([3, 4]);
    expect(unavailableAmong(b, [1, 9])).toEqual([]);
  });
});

describe('conflictsOf (409 body)', () => {
  test('the conflicting numbers, whole and not negative, sorted', () => {
    expect(conflictsOf({ conflicts: [15, '3', 15] })).toEqual([3, 15]);
    expect(conflictsOf({ conflicts: [-1, 'x', 1.5, 7] })).toEqual([7]);
  });

  test('null when there is no usable list', () => {
    expect(conflictsOf(null)).toBeNull();
    expect(conflictsOf('conflict')).toBeNull();
    expect(conflictsOf({})).toBeNull();
    expect(conflictsOf({ conflicts: 'x' })).toBeNull();
    expect(conflictsOf({ conflicts: [] })).toBeNull();
    expect(conflictsOf({ conflicts: [-2, 'a'] })).toBeNull();
  });
});

describe('drawSourceOf (navigation state of /numeros)', () => {
  test('a positive draw id, as a number or a numeric string', () => {
    expect(drawSourceOf({ drawId: 12 })).toEqual({ drawId: 12, product: null });
    expect(drawSourceOf({ drawId: '12' })).toEqual({ drawId: 12, product: null });
  });

  test.each([0, -4, 2.5, '', ' ', 'abc', null])('no draw id from %p', (drawId) => {
    expect(drawSourceOf({ drawId }).drawId).toBeNull();
  });

  test('the product by id first, else by trimmed SKU', () => {
    expect(drawSourceOf({ product: { id: 7, sku: 'EBOOK-X' } })).toEqual({ drawId: null, product: '7' });
    expect(drawSourceOf({ product: { id: '8' } }).product).toBe('8');
    expect(drawSourceOf({ product: { id: 0, sku: ' EBOOK-X ' } }).product).toBe('EBOOK-X');
    expect(drawSourceOf({ product: { sku: '  ' } }).product).toBeNull();
    expect(drawSourceOf({ drawId: 3, paymentId: 9, product: { id: 7 } })).toEqual({ drawId: 3, product: '7' });
  });

  test('anything else is no source', () => {
    for (const state of [null, undefined, 'x', 42, { product: 'EBOOK-X' }]) {
      expect(drawSourceOf(state)).toEqual({ drawId: null, product: null });
    }
  });
});

describe('ownNumbers (the signed-in customer’s numbers on /numeros)', () => {
  /** Board of draw 1 where each [n, initials] is sold with those owner initials. */
  function soldBoard(sold: Array<[number, string | null]>, extra: Record<number, NumberStatus> = {}): Board {
    const b = board(extra);
    for (const [n, initials] of sold) b.numbers[n] = { n, status: 'sold', initials };
    return b;
  }
  const res = (o: { draw_id?: number; numbers: number[]; status: ReservationStatus }) => ({ id: 1, draw_id: 1, ...o });

  test('numbers of consumed or paid reservations of this draw, sorted, when the board shows them sold', () => {
    const b = soldBoard([
      [42, 'MDS'],
      [7, 'MDS'],
      [90, 'MDS'],
    ]);
    const reservations = [res({ numbers: [42, 7], status: 'consumed' }), res({ numbers: [90], status: 'paid' })];
    expect(ownNumbers(b, { reservations, initials: 'MDS' })).toEqual([7, 42, 90]);
  });

  test('holds that never became a purchase, and other draws, do not count', () => {
    const b = soldBoard([[3, 'MDS']], { 4: 'reserved' });
    const reservations = [
      res({ numbers: [4], status: 'active' }),
      res({ numbers: [3], status: 'expired' }),
      res({ numbers: [3], status: 'cancelled' }),
      res({ draw_id: 2, numbers: [3], status: 'consumed' }),
    ];
    expect(ownNumbers(b, { reservations, initials: 'MDS' })).toEqual([]);
  });

  test('a number the board does not show as sold is not (or no longer) the customer’s', () => {
    const b = soldBoard([], { 12: 'reserved' });
    expect(ownNumbers(b, { reservations: [res({ numbers: [11, 12], status: 'consumed' })], initials: 'MDS' })).toEqual([]);
  });

  test('a paid hold whose number went to someone else (late approval) is not the customer’s', () => {
    const b = soldBoard([
      [20, 'MDS'],
      [21, 'JPS'],
    ]);
    expect(ownNumbers(b, { reservations: [res({ numbers: [20, 21], status: 'paid' })], initials: 'MDS' })).toEqual([20]);
    // Without initials to compare (a nameless profile), the sold cells of the purchase count.
    expect(ownNumbers(b, { reservations: [res({ numbers: [20, 21], status: 'paid' })], initials: null })).toEqual([20, 21]);
  });

  test('numbers just confirmed on screen count as soon as the board shows them sold', () => {
    const before = board();
    expect(ownNumbers(before, { reservations: [], confirmed: [5, 50], initials: 'MDS' })).toEqual([]);
    const after = soldBoard([
      [5, 'MDS'],
      [50, 'MDS'],
    ]);
    expect(ownNumbers(after, { reservations: [], confirmed: [50, 5, 5], initials: 'MDS' })).toEqual([5, 50]);
  });

  test('no board yet: nothing to mark', () => {
    expect(ownNumbers(null, { reservations: [res({ numbers: [1], status: 'consumed' })], initials: 'MDS' })).toEqual([]);
  });
});

describe('board keys (roving tabindex of NumberGrid)', () => {
  it('arrows move by one cell and one row, and stop at the board edges', () => {
    expect(moveFocus(0, 'ArrowRight', 100)).toBe(1);
    expect(moveFocus(9, 'ArrowRight', 100)).toBe(10);
    expect(moveFocus(42, 'ArrowLeft', 100)).toBe(41);
    expect(moveFocus(42, 'ArrowDown', 100)).toBe(52);
    expect(moveFocus(42, 'ArrowUp', 100)).toBe(32);
    expect(moveFocus(0, 'ArrowLeft', 100)).toBe(0);
    expect(moveFocus(5, 'ArrowUp', 100)).toBe(5);
    expect(moveFocus(95, 'ArrowDown', 100)).toBe(95);
    expect(moveFocus(99, 'ArrowRight', 100)).toBe(99);
  });

  it('Home/End go to the row ends; with Ctrl to the first and last number; other keys are not moves', () => {
    expect(moveFocus(47, 'Home', 100)).toBe(40);
    expect(moveFocus(47, 'End', 100)).toBe(49);
    expect(moveFocus(47, 'Home', 100, true)).toBe(0);
    expect(moveFocus(47, 'End', 100, true)).toBe(99);
    expect(moveFocus(47, 'PageUp', 100)).toBe(7);
    expect(moveFocus(47, 'PageDown', 100)).toBe(97);
    expect(moveFocus(47, ' ', 100)).toBeNull();
    expect(moveFocus(47, 'Enter', 100)).toBeNull();
    expect(moveFocus(47, 'a', 100)).toBeNull();
  });
});

describe("'Surpresinha' and 'Só livres' (issue 26)", () => {
  const boardOf = (cells: Array<[number, NumberStatus]>): Board => ({
    draw_id: 1,
    status: 'open',
    total_numbers: 10,
    numbers: cells.map(([n, status]) => ({ n, status, initials: null })),
  });

  test('free numbers: available ones, missing cells counting as available', () => {
    expect(
      freeNumbers(
        boardOf([
          [1, 'sold'],
          [2, 'reserved'],
          [3, 'taken'],
          [4, 'available'],
        ]),
        10,
      ),
    ).toEqual([0, 4, 5, 6, 7, 8, 9]);
    expect(freeNumbers(null, 10)).toEqual([]);
  });

  test('picks `count` distinct free numbers, sorted; never more than are free', () => {
    const free = [3, 17, 42, 64, 88];
    for (let i = 0; i < 50; i++) {
      const picked = surpriseNumbers(free, 3);
      expect(picked).toHaveLength(3);
      expect(new Set(picked).size).toBe(3);
      for (const n of picked) expect(free).toContain(n);
      expect(picked).toEqual([...picked].sort((a, b) => a - b));
    }
    expect(surpriseNumbers(free, 9)).toEqual(free);
    expect(surpriseNumbers(free, 0)).toEqual([]);
    expect(surpriseNumbers([], 3)).toEqual([]);
  });

  test('the pick follows the random source (a partial Fisher-Yates shuffle)', () => {
    // Always the last index left: swaps 0↔4 then 1↔4 → [88, 3] among [3, 17, 42, 64, 88] … sorted.
    expect(surpriseNumbers([3, 17, 42, 64, 88], 2, (max) => max - 1)).toEqual([3, 88]);
    expect(surpriseNumbers([3, 17, 42, 64, 88], 2, () => 0)).toEqual([3, 17]);
  });

  test('random indexes come from the CSPRNG, without modulo bias (values past the last whole cycle are drawn again)', () => {
    const values = [0xffff_ffff, 7];
    const fill = (a: Uint32Array) => {
      a[0] = values.shift()!;
      return a;
    };
    expect(randomIndex(10, fill)).toBe(7);
    expect(values).toEqual([]);
    for (let i = 0; i < 100; i++) {
      const v = randomIndex(3);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(3);
    }
    expect(() => randomIndex(0)).toThrow(RangeError);
  });

  test('how many may be picked: the per-selection maximum, the free count and the allowance', () => {
    expect(surpriseMax({ maxSelection: 10, free: 4, remaining: null })).toBe(4);
    expect(surpriseMax({ maxSelection: 5, free: 40, remaining: null })).toBe(5);
    expect(surpriseMax({ maxSelection: 5, free: 40, remaining: 2 })).toBe(2);
    expect(surpriseMax({ maxSelection: 5, free: 40, remaining: 0 })).toBe(0);
  });
});
