/**
 * Money as the store, the console, the server and the CLI write and read it: amounts are integer
 * cents (RULES "Money is integer cents"), shown pt-BR ("R$ 1.234,56"; storefront spec §9). The web's
 * formatBRL, the receipt's formatReceiptAmount and the CLI's brl must agree on every amount; the
 * console's price field and the server's reaisToCents must accept the same texts and round-trip.
 */
jest.mock('../../web/src/api/base', () => ({ API_BASE: '/api' })); // import.meta.env, which jest cannot load

import { formatBRL } from '../../web/src/components/product/format';
import { centsToReais, REAIS_RE } from '../../web/src/pages/admin/money';
import { plural, pad3 } from '../../web/src/pages/admin/shared/format';
import { formatReceiptAmount } from '../../src/shared/receipt';
import { reaisToCents } from '../../src/catalogue/admin';
import { brl as cliBrl } from '../../cli/output';
import { prng } from './prng';

const NBSP = '\u00a0';
/** The written form with Intl's no-break space after R$. */
const intl = (s: string) => s.replace('R$ ', `R$${NBSP}`);

describe('cents → pt-BR reais', () => {
  test.each([
    [0, 'R$ 0,00'],
    [1, 'R$ 0,01'],
    [9, 'R$ 0,09'],
    [10, 'R$ 0,10'],
    [99, 'R$ 0,99'],
    [100, 'R$ 1,00'],
    [1990, 'R$ 19,90'],
    [99999, 'R$ 999,99'],
    [100000, 'R$ 1.000,00'],
    [123456, 'R$ 1.234,56'],
    [1234567, 'R$ 12.345,67'],
    [100000000, 'R$ 1.000.000,00'],
    [123456789012, 'R$ 1.234.567.890,12'],
  ])('%i cents: %s on the web, on the receipt and in the CLI', (cents, text) => {
    expect(formatBRL(cents)).toBe(intl(text));
    expect(formatReceiptAmount(cents)).toBe(intl(text));
    expect(cliBrl(cents)).toBe(text); // plain spaces for terminals
  });

  test.each([
    [-250, '-R$ 2,50'],
    [-1, '-R$ 0,01'],
    [-123456, '-R$ 1.234,56'],
  ])('a negative amount (a reversal, an adjustment) %i: %s', (cents, text) => {
    expect(cliBrl(cents)).toBe(text);
    expect(formatReceiptAmount(cents).replace(/\s/g, ' ')).toBe(text);
  });

  test('the web shows no amount as R$ 0,00 (null, undefined, NaN, infinities)', () => {
    for (const c of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(formatBRL(c)).toBe(intl('R$ 0,00'));
  });

  test('2,000 generated amounts: the three formatters agree, and the text reads back to the cents', () => {
    const rnd = prng(1990);
    for (let i = 0; i < 2000; i++) {
      const cents = Math.floor(rnd() ** 3 * 1e10);
      const web = formatBRL(cents);
      expect(formatReceiptAmount(cents)).toBe(web);
      expect(cliBrl(cents)).toBe(web.replace(/\s/g, ' '));
      expect(web.startsWith(`R$${NBSP}`)).toBe(true);
      // "R$ 1.234,56" → 123456: the server reads what the store writes.
      expect(reaisToCents(web.replace(NBSP, ' '))).toBe(cents);
      // Thousands grouped by dots, two decimals after a comma.
      expect(web.slice(3)).toMatch(/^\d{1,3}(\.\d{3})*,\d{2}$/);
    }
  });
});

describe("the console's price field and the server's reading (reaisToCents)", () => {
  test.each([
    ['19,90', 1990],
    ['19.90', 1990],
    ['19,9', 1990],
    ['19.9', 1990],
    ['0,5', 50],
    ['0,05', 5],
    ['1234', 123400],
    ['1.234,56', 123456],
    ['R$ 19,90', 1990],
    ['R$1.234,56', 123456],
    ['r$ 7', 700],
    ['  7  ', 700],
    ['100.000,00', 10000000],
  ])('%j is %i cents', (text, cents) => {
    expect(REAIS_RE.test(text)).toBe(true);
    expect(reaisToCents(text)).toBe(cents);
  });

  test.each(['19,999', '1,2,3', 'abc', '-5', '19,9x', '1.23.4', 'R$', '12.345.6', '1.2345,00', ',50', '19,', 'US$ 5'])(
    '%j is refused by both',
    (text) => {
      expect(REAIS_RE.test(text)).toBe(false);
      expect(reaisToCents(text)).toBeNaN();
    },
  );

  test('empty is no price (null), not zero', () => {
    expect(reaisToCents('')).toBeNull();
    expect(reaisToCents('   ')).toBeNull();
    expect(reaisToCents(null)).toBeNull();
    expect(reaisToCents(undefined)).toBeNull();
    expect(centsToReais(null)).toBe('');
    expect(centsToReais(undefined)).toBe('');
  });

  test.each([
    [19.9, 1990],
    [0, 0],
    [0.01, 1],
    [1234.56, 123456],
  ])('a JSON number of reais %p is %i cents', (reais, cents) => {
    expect(reaisToCents(reais)).toBe(cents);
  });

  test.each([-1, 1.234, Number.NaN, Number.POSITIVE_INFINITY])('a JSON number %p is not an amount', (reais) => {
    expect(reaisToCents(reais)).toBeNaN();
  });

  test.each([true, {}, [], ['1']])('%p is not an amount', (v) => {
    expect(reaisToCents(v)).toBeNaN();
  });

  test.each([
    [0, '0,00'],
    [5, '0,05'],
    [1990, '19,90'],
    [123456, '1234,56'],
  ])('%i cents fills the field as %j', (cents, text) => {
    expect(centsToReais(cents)).toBe(text);
  });

  test('2,000 generated prices round-trip: cents → field text → the form accepts it → the server reads the same cents', () => {
    const rnd = prng(2000);
    for (let i = 0; i < 2000; i++) {
      const cents = Math.floor(rnd() ** 2 * 1e8);
      const text = centsToReais(cents);
      expect(REAIS_RE.test(text)).toBe(true);
      expect(reaisToCents(text)).toBe(cents);
    }
  });
});

describe("the console's small formats", () => {
  test.each([
    [0, '000'],
    [7, '007'],
    [42, '042'],
    [999, '999'],
    [1234, '1234'],
  ])('draw number %i → %s', (n, text) => {
    expect(pad3(n)).toBe(text);
  });
  test('no draw number is a dash', () => {
    expect(pad3(null)).toBe('—');
    expect(pad3(undefined)).toBe('—');
  });
  test.each([
    [0, '0 números'],
    [1, '1 número'],
    [2, '2 números'],
    [1000, '1.000 números'],
  ])('%i → %s', (n, text) => {
    expect(plural(n, 'número', 'números')).toBe(text);
  });
});
