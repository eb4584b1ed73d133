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

describe('readQuantity (the field of the quantity dialog)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { readQuantity } = require('../../web/src/pages/purchase/quantity') as typeof import('../../web/src/pages/purchase/quantity');
  test.each([
    ['3', { text: '3', quantity: 3, overLimit: false }],
    ['20', { text: '20', quantity: 20, overLimit: false }],
    ['21', { text: '20', quantity: 20, overLimit: true }],
    ['250', { text: '20', quantity: 20, overLimit: true }],
    ['', { text: '', quantity: null, overLimit: false }],
    ['0', { text: '0', quantity: null, overLimit: false }],
    ['07', { text: '7', quantity: 7, overLimit: false }],
    ['1a2', { text: '12', quantity: 12, overLimit: false }],
    ['-4', { text: '4', quantity: 4, overLimit: false }],
  ])('%p → %p', (raw, expected) => {
    expect(readQuantity(raw)).toEqual(expected);
  });
});

describe('formatCountdown (the PIX code expiry)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { formatCountdown } = require('../../web/src/pages/purchase/countdown') as typeof import('../../web/src/pages/purchase/countdown');
  test.each([
    [30 * 60_000, '30:00'],
    [61_000, '01:01'],
    [59_001, '01:00'],
    [1, '00:01'],
    [0, '00:00'],
    [-5000, '00:00'],
  ])('%p ms → %p', (ms, expected) => {
    expect(formatCountdown(ms)).toBe(expected);
  });
});
