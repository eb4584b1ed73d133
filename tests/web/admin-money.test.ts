import { centsToReais, REAIS_RE } from '../../web/src/pages/admin/money';
import { reaisToCents } from '../../src/catalogue/admin';

/** The console's price field and the server agree on what reais text is valid, and round-trip. */
describe('admin money', () => {
  test.each(['19,90', '19.90', 'R$ 19,90', 'R$1.234,56', '1.234,56', '0,5', '1234', ' 7 ', '1234,5', '100.000,00'])(
    '%j: accepted by the form and the server',
    (v) => {
      expect(REAIS_RE.test(v)).toBe(true);
      expect(Number.isNaN(reaisToCents(v))).toBe(false);
    },
  );

  test.each(['19,999', '1,2,3', 'abc', '-5', '19,9x', '1.23.4', 'R$', '12.345.6'])('%j: refused by the form and the server', (v) => {
    expect(REAIS_RE.test(v)).toBe(false);
    expect(reaisToCents(v)).toBeNaN();
  });

  test.each([0, 1, 5, 1990, 123456, 100_000_000])('%i cents → text → the same cents', (c) => {
    expect(reaisToCents(centsToReais(c))).toBe(c);
  });

  test('no price is an empty field', () => {
    expect(centsToReais(null)).toBe('');
  });
});
