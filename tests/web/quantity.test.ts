import { MAX_QUANTITY, MIN_QUANTITY, clampQuantity } from '../../web/src/pages/purchase/quantity';

describe('clampQuantity (1 to 20 e-books per purchase)', () => {
  test('the limits of the spec', () => {
    expect([MIN_QUANTITY, MAX_QUANTITY]).toEqual([1, 20]);
  });

  test.each([
    [1, 1],
    [3, 3],
    [20, 20],
    [21, 20],
    [1000, 20],
    [0, 1],
    [-5, 1],
    [3.9, 3],
    [-0.5, 1],
    [Number.NaN, 1],
    [Number.POSITIVE_INFINITY, 1],
    [Number.NEGATIVE_INFINITY, 1],
  ])('%p → %p', (q, expected) => {
    expect(clampQuantity(q)).toBe(expected);
  });
});
