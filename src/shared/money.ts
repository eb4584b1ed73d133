const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/**
 * "R$ 10,00" from cents, with a plain space: the amounts written into texts people read later
 * (review reasons, audit notes), never "1000 centavo(s)". Receipts keep Intl's non-breaking space
 * (src/shared/receipt.ts).
 */
export function brl(cents: number): string {
  return BRL.format(cents / 100).replace(/\u00a0/g, ' ');
}
