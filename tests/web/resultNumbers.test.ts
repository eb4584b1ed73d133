/**
 * The 'Registrar resultado' dialog's reading of the 20 numbers (web/src/pages/admin/resultNumbers.ts)
 * agrees with the server's (src/draws/results.ts DrawnNumbers) on real contests and bad input.
 */
import { numbersProblem, parseNumbers } from '../../web/src/pages/admin/resultNumbers';
import { DrawnNumbers } from '../../src/results/schemas';
import { REAL_CONTESTS } from '../helpers/fake-lottery';

test('real contests typed with spaces, commas or hyphens read as the 20 numbers in order', () => {
  for (const [c, nums] of Object.entries(REAL_CONTESTS)) {
    for (const sep of [' ', ', ', '-', '  ']) {
      const text = nums.join(sep);
      expect([c, parseNumbers(text)]).toEqual([c, nums.map(Number)]);
      expect(numbersProblem(parseNumbers(text))).toBeNull();
      expect(DrawnNumbers.parse(text)).toEqual(nums.map(Number));
    }
  }
});

test.each([
  ['01 02 03', 'Informe exatamente 20 números (recebidos: 3).'],
  [`${REAL_CONTESTS['2600'].slice(1).join(' ')} 64`, 'Os 20 números devem ser distintos.'],
  [`${REAL_CONTESTS['2600'].slice(1).join(' ')} 100`, 'Cada número deve estar entre 00 e 99.'],
  [`${REAL_CONTESTS['2600'].slice(1).join(' ')} x`, 'Cada número deve estar entre 00 e 99.'],
])('%j → %s, as the server says', (text, message) => {
  expect(numbersProblem(parseNumbers(text))).toBe(message);
  const server = DrawnNumbers.safeParse(text);
  expect(server.success).toBe(false);
  expect(server.error?.issues[0].message).toBe(message);
});
