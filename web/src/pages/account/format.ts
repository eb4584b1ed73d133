import dayjs from 'dayjs';
import { pad2 } from '../../components/board/labels';
import { maskPhone, onlyDigits } from '../../../../src/shared/validation';

/** "11987654321" → "(11) 98765-4321"; numbers with a country code lose it. */
export function formatPhone(phone: string | null | undefined): string {
  let d = onlyDigits(phone ?? '');
  if (!d) return '';
  if (d.length > 11 && d.startsWith('55')) d = d.slice(2);
  return maskPhone(d);
}

/** Only the middle digits stay visible: "***.456.789-**" (the full CPF is never needed on screen). */
export function maskCpfPrivate(cpf: string | null | undefined): string {
  const d = onlyDigits(cpf ?? '');
  if (d.length !== 11) return d ? '***' : '';
  return `***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`;
}

/** ISO timestamp → "22/11/2025". */
export const formatDate = (iso: string | null | undefined) => (iso && dayjs(iso).isValid() ? dayjs(iso).format('DD/MM/YYYY') : '');

/** "Maria da Silva" → "Maria". */
export const firstName = (name: string | null | undefined) => (name ?? '').trim().split(/\s+/)[0] ?? '';

export { pad2 };

/** [3, 42] → "03, 42". */
export const formatNumberList = (numbers: number[]) => numbers.map(pad2).join(', ');

/** ISO timestamp → "22/11/2025 14:05". */
export const formatDateTime = (iso: string | null | undefined) =>
  iso && dayjs(iso).isValid() ? dayjs(iso).format('DD/MM/YYYY HH:mm') : '';
