/**
 * The birth date of /cadastro, typed on a numeric keyboard as DD/MM/AAAA (no calendar to scroll
 * back through decades). The server receives it as YYYY-MM-DD, as before.
 */
import { onlyDigits, parseIsoDate } from '../../../../src/shared/validation';

const ISO = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/;

/**
 * DD/MM/AAAA while typing: digits only (8 at most), the slashes put in after the day and the
 * month. A pasted or autofilled YYYY-MM-DD is turned around.
 */
export function maskBirthdate(value: string): string {
  const iso = ISO.exec(value ?? '');
  if (iso) return `${iso[3]}/${iso[2]}/${iso[1]}`;
  const d = onlyDigits(value ?? '').slice(0, 8);
  if (d.length <= 2) return d;
  if (d.length <= 4) return `${d.slice(0, 2)}/${d.slice(2)}`;
  return `${d.slice(0, 2)}/${d.slice(2, 4)}/${d.slice(4)}`;
}

/** "15/05/1990" → "1990-05-15"; null unless it is a complete, real calendar date. */
export function birthdateToIso(value: string): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec((value ?? '').trim());
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  return parseIsoDate(iso) ? iso : null;
}
