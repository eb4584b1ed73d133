import { brl } from '../../src/shared/money';

test('brl writes cents as reais the way people read them, with a plain space', () => {
  expect(brl(1000)).toBe('R$ 10,00');
  expect(brl(0)).toBe('R$ 0,00');
  expect(brl(5)).toBe('R$ 0,05');
  expect(brl(123456)).toBe('R$ 1.234,56');
  expect(brl(-250)).toBe('-R$ 2,50');
});
