import { countOf, plural } from '../../src/shared/plural';

describe('plural (pt-BR counts)', () => {
  it('is singular for exactly one and plural otherwise', () => {
    expect(plural(1, 'número', 'números')).toBe('número');
    expect(plural(2, 'número', 'números')).toBe('números');
    expect(plural(0, 'número', 'números')).toBe('números');
    expect(plural(1.5, 'número', 'números')).toBe('números');
  });
  it('writes the count with pt-BR digits', () => {
    expect(countOf(1, 'voucher', 'vouchers')).toBe('1 voucher');
    expect(countOf(1000, 'centavo', 'centavos')).toBe('1.000 centavos');
    expect(countOf(3, 'número', 'números', (n) => String(n).padStart(2, '0'))).toBe('03 números');
  });
});
