/** Builds a valid CPF from any 9-digit base (check digits computed). */
export function makeCpf(base: number): string {
  const d = String(Math.abs(base) % 1_000_000_000)
    .padStart(9, '0')
    .split('')
    .map(Number);
  if (d.every((x) => x === d[0])) d[8] = (d[8] + 1) % 10;
  const check = (digits: number[]) => {
    const len = digits.length;
    const sum = digits.reduce((acc, x, i) => acc + x * (len + 1 - i), 0);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  d.push(check(d));
  d.push(check(d));
  return d.join('');
}

let counter = Math.floor(Math.random() * 1_000_000);
export function uniqueCpf(): string {
  counter += 7919;
  return makeCpf(100_000_000 + (counter % 800_000_000));
}
