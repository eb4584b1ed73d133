import dayjs from 'dayjs';

/**
 * Formatting shared by the admin console's pages (money in cents, dates pt-BR, padded numbers).
 * Re-exports the store's own helpers so the console and the customer area format alike.
 */
export { formatBRL } from '../../../components/product/format';
export { formatDate, formatDateTime, pad2 } from '../../account/format';

/** 7 → "007" (draw numbers, account spec §2 "Nº SORTEIO"). */
export const pad3 = (n: number | null | undefined) => (n == null ? '—' : String(n).padStart(3, '0'));

/** "1 número", "12 números". */
export const plural = (n: number, one: string, many: string) => `${n.toLocaleString('pt-BR')} ${n === 1 ? one : many}`;

/** ISO timestamp → "22/11/2025 14:05:09" (the audit log wants the seconds). */
export const formatDateTimeSeconds = (iso: string | null | undefined) =>
  iso && dayjs(iso).isValid() ? dayjs(iso).format('DD/MM/YYYY HH:mm:ss') : '';
