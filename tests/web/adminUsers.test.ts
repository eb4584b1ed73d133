import { parseNumbers, reaisToCents } from '../../web/src/pages/admin/users/parse';

/** The customer registry's input parsing (account spec §5): numbers split on commas, spaces or semicolons; balance typed in reais. */
describe('parseNumbers', () => {
  test.each([
    ['07, 15 42', [7, 15, 42]],
    ['1;2;3', [1, 2, 3]],
    ['  5 ,, 6  ', [5, 6]],
    ['3 3', [3]],
    ['00', [0]],
  ])('%j → %j', (text, numbers) => expect(parseNumbers(text)).toEqual(numbers));

  test.each(['', '   ', 'a', '1, x', '-1', '1.5', '1000'])('%j is refused', (text) => expect(parseNumbers(text)).toBeNull());
});

describe('reaisToCents', () => {
  test.each([
    ['12,50', 1250],
    ['12.5', 1250],
    ['R$ 1.234,56', 123456],
    ['0', 0],
    ['', 0],
    ['10', 1000],
    [25.5, 2550],
  ] as Array<[string | number, number]>)('%j → %i', (text, cents) => expect(reaisToCents(text)).toBe(cents));

  test.each(['abc', '-5', '1,234', '12,345', '1.2.3'])('%j is refused', (text) => expect(reaisToCents(text)).toBeNull());
});
