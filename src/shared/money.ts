import { formatReceiptAmount } from './receipt';

/**
 * "R$ 10,00" from cents, with a plain space: the amounts written into texts people read later
 * (review reasons, audit notes), never "1000 centavo(s)". The receipts' formatter, whose Intl
 * non-breaking space stays on receipts (src/shared/receipt.ts).
 */
export function brl(cents: number): string {
  return formatReceiptAmount(cents).replace(/\u00a0/g, ' ');
}
