/**
 * Formatting shared by the admin console's pages (money in cents, dates pt-BR, padded numbers).
 * Re-exports the store's own helpers so the console and the customer area format alike.
 */
export { formatBRL } from '../../../components/product/format';
export { formatDate, formatDateTime, pad2 } from '../../account/format';
export { formatDateTimeSeconds } from './dates';

/** 7 → "007" (draw numbers, account spec §2 "Nº SORTEIO"). */
export const pad3 = (n: number | null | undefined) => (n == null ? '—' : String(n).padStart(3, '0'));

/** "1 número", "12 números". */
export const plural = (n: number, one: string, many: string) => `${n.toLocaleString('pt-BR')} ${n === 1 ? one : many}`;
