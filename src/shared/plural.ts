/**
 * Portuguese plural forms for counts shown to people ("1 número", "2 números"), shared by the
 * server's messages and the web. Explicit singular/plural rather than Intl.PluralRules: CLDR's
 * pt rule calls 0 and 1.5 'one', which reads wrong in a count ("0 número", "1,5 centavo").
 * Only exactly one is singular.
 */
export function plural(n: number, one: string, many: string): string {
  return Math.abs(n) === 1 ? one : many;
}

/** The count and its word: `countOf(1, 'voucher', 'vouchers')` → '1 voucher'. */
export function countOf(n: number, one: string, many: string, format: (n: number) => string = (x) => x.toLocaleString('pt-BR')): string {
  return `${format(n)} ${plural(n, one, many)}`;
}
