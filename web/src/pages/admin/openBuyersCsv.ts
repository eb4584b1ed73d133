import type { OpenBuyer, OpenBuyerNumber } from '../../../../src/shared/api/admin-history';
import { BOARD_NUMBER_STATUS as STATUS_TEXT } from '../../statusLabels';

/**
 * 'Exportar CSV' of the active raffle buyers (account spec §2: done client-side). The file opens
 * in Excel pt-BR as is: UTF-8 with a BOM (accents), ';' between fields (',' is the decimal
 * separator there), CRLF line ends, amounts as '12,34'. A field holding ';', '"' or a line break
 * is quoted with inner quotes doubled; a field that starts like a formula (=, +, -, @, tab, CR)
 * gets a leading apostrophe so a buyer's name can never run as a formula (CSV injection).
 */

export const CSV_BOM = '\uFEFF';

export function csvField(value: string | number | null | undefined): string {
  let s = value == null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[";\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows: Array<Array<string | number | null | undefined>>): string {
  return CSV_BOM + rows.map((r) => r.map(csvField).join(';')).join('\r\n') + '\r\n';
}

const pad = (n: number) => String(n).padStart(2, '0');
/** Cents as a pt-BR decimal without thousands separator ('1234,50'), which Excel pt-BR reads as a number. */
export const centsForCsv = (cents: number) =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)},${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** The 'Por comprador' tab as CSV: one line per buyer. */
export function buyersCsv(buyers: OpenBuyer[]): string {
  return toCsv([
    ['Nome', 'E-mail', 'Telefone', 'Quantidade', 'Números', 'Total (R$)'],
    ...buyers.map((b) => [b.name, b.email, b.phone ?? '', b.count, b.numbers.map(pad).join(' '), centsForCsv(b.total_cents)]),
  ]);
}

/** The 'Por número' tab as CSV: one line per number. */
export function numbersCsv(numbers: OpenBuyerNumber[]): string {
  return toCsv([
    ['Número', 'Situação', 'Nome', 'E-mail'],
    ...numbers.map((n) => [pad(n.n), STATUS_TEXT[n.status], n.name ?? '', n.email ?? '']),
  ]);
}

/** File name of an export: 'compradores-sorteio-007.csv' / 'numeros-sorteio-007.csv'. */
export function csvFileName(kind: 'buyers' | 'numbers', drawId: number | null): string {
  return `${kind === 'buyers' ? 'compradores' : 'numeros'}-sorteio-${String(drawId ?? 0).padStart(3, '0')}.csv`;
}
