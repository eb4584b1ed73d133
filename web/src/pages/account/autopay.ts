/**
 * The rules of the autopay form ('Compra automática - número cativo', account spec §5 and §9),
 * as pure functions: picking captive numbers, the card fields (digits, expiry, CPF/CNPJ) and
 * whether anything changed. The dialog (AutopayDialog.tsx) only wires them to the inputs.
 */
import { pad2 } from '../../components/board/labels';
import {
  AUTOPAY_MAX_NUMBERS,
  AUTOPAY_MESSAGES as SHARED_MESSAGES,
  CARD_NUMBER_MAX_DIGITS,
  CVV_MAX_DIGITS,
  DOC_MAX_DIGITS,
  cardBrand,
  cvvLength,
  isExpired as isExpiredShared,
  isValidCnpj,
  isValidDoc,
  luhnValid,
  parseExpiry as parseExpiryShared,
} from '../../../../src/shared/autopay';
import { maskCpf, onlyDigits } from '../../../../src/shared/validation';

// The rules the server checks too (src/shared/autopay.ts), computed once.
export { isValidCnpj, isValidDoc, onlyDigits };

/** Account spec §9. */
export const MAX_CAPTIVE = AUTOPAY_MAX_NUMBERS;
export const CARD_DIGITS_MAX = CARD_NUMBER_MAX_DIGITS;
export const DOC_DIGITS_MAX = DOC_MAX_DIGITS;
export const CVV_DIGITS_MAX = CVV_MAX_DIGITS;

/** The texts of account spec §5 and §8 (shared with the server), plus the dialog's own. */
export const AUTOPAY_MESSAGES = {
  ...SHARED_MESSAGES,
  loadFailed: 'Não foi possível carregar a compra automática.',
  fieldRequired: 'Campo obrigatório.',
} as const;

/* ------------------------------------------------------------------------------------------ */
/* Captive numbers                                                                            */
/* ------------------------------------------------------------------------------------------ */

export { pad2 };

export type PickResult = { numbers: number[]; error: null } | { numbers: number[]; error: string };

/**
 * Toggles `n` in the picks (kept sorted). Numbers taken by another customer cannot be picked;
 * a 21st pick is refused with the spec's limit message and the picks stay as they were.
 */
export function togglePick(picks: readonly number[], n: number, taken: ReadonlySet<number> = new Set()): PickResult {
  if (!Number.isInteger(n) || n < 0 || n > 99) return { numbers: [...picks], error: null };
  if (picks.includes(n)) return { numbers: picks.filter((p) => p !== n), error: null };
  if (taken.has(n)) return { numbers: [...picks], error: null };
  if (picks.length >= MAX_CAPTIVE) return { numbers: [...picks], error: AUTOPAY_MESSAGES.tooMany };
  return { numbers: [...picks, n].sort((a, b) => a - b), error: null };
}

export type CellState = 'free' | 'taken' | 'mine';

/** A grid cell: 'mine' when picked in the form, 'taken' when another customer holds it, else 'free'. */
export function cellStateOf(n: number, picks: readonly number[], taken: ReadonlySet<number>): CellState {
  if (picks.includes(n)) return 'mine';
  if (taken.has(n)) return 'taken';
  return 'free';
}

/* ------------------------------------------------------------------------------------------ */
/* Card fields                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Card number while typing: digits only (at most 19), in groups of 4. */
export function formatCardNumber(v: string): string {
  return onlyDigits(v)
    .slice(0, CARD_DIGITS_MAX)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** Luhn check of 12 to 19 digits (spaces as typed are ignored). */
export function isValidCardNumber(v: string): boolean {
  return luhnValid(onlyDigits(v));
}

/** Expiry while typing: 'MM/AA' or 'MM/AAAA' (digits only, the slash added after the month). */
export function formatExpiry(v: string): string {
  const d = onlyDigits(v).slice(0, 6);
  return d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d;
}

export interface Expiry {
  month: number;
  /** Four digits: 'AA' is read as 20AA. */
  year: number;
}

/** 'MM/AA' or 'MM/AAAA' → month and 4-digit year ('AA' is 20AA); anything else → null. */
export function parseExpiry(v: string): Expiry | null {
  const e = parseExpiryShared(v);
  return e && e.year >= 2000 ? e : null;
}

/** A card is valid through the last day of its expiry month. */
export function isExpired(e: Expiry, today: Date = new Date()): boolean {
  return isExpiredShared(e.month, e.year, today);
}

export const formatCvv = (v: string) => onlyDigits(v).slice(0, CVV_DIGITS_MAX);

/** CPF/CNPJ: digits only, at most 18 (account spec §5); more than 11 digits counts as a CNPJ. */
export function docDigits(v: string): string {
  return onlyDigits(v).slice(0, DOC_DIGITS_MAX);
}

export function docKind(v: string): 'CPF' | 'CNPJ' {
  return onlyDigits(v).length > 11 ? 'CNPJ' : 'CPF';
}

/** CPF as 000.000.000-00, CNPJ as 00.000.000/0000-00 while typing; beyond 14 digits, the digits. */
export function formatDoc(v: string): string {
  const d = docDigits(v);
  if (d.length <= 11) return maskCpf(d);
  if (d.length > 14) return d;
  return d
    .replace(/^(\d{2})(\d)/, '$1.$2')
    .replace(/^(\d{2})\.(\d{3})(\d)/, '$1.$2.$3')
    .replace(/\.(\d{3})(\d)/, '.$1/$2')
    .replace(/(\d{4})(\d{1,2})$/, '$1-$2');
}

/* ------------------------------------------------------------------------------------------ */
/* The form                                                                                   */
/* ------------------------------------------------------------------------------------------ */

export interface CardFields {
  number: string;
  expiry: string;
  cvv: string;
  holder: string;
  doc: string;
}

export const EMPTY_CARD: CardFields = { number: '', expiry: '', cvv: '', holder: '', doc: '' };

/** True when the person typed anything in the card form (then every field is required). */
export function hasCardInput(c: CardFields): boolean {
  return Object.values(c).some((v) => String(v ?? '').trim() !== '');
}

/** What the server has: the saved state the form starts from. */
export interface SavedAutopay {
  active: boolean;
  numbers: readonly number[];
}

export interface FormState {
  active: boolean;
  numbers: readonly number[];
  card: CardFields;
}

const sameNumbers = (a: readonly number[], b: readonly number[]) => {
  if (a.length !== b.length) return false;
  const sa = [...a].sort((x, y) => x - y);
  const sb = [...b].sort((x, y) => x - y);
  return sa.every((n, i) => n === sb[i]);
};

/** 'Salvar' is enabled only when something changed (account spec §5): the toggle, the numbers or new card data. */
export function hasChanges(saved: SavedAutopay, form: FormState): boolean {
  return saved.active !== form.active || !sameNumbers(saved.numbers, form.numbers) || hasCardInput(form.card);
}

/** The card as the tokenizer takes it. */
export interface CardData {
  card_number: string;
  expiration_month: number;
  expiration_year: number;
  security_code: string;
  cardholder_name: string;
  doc_number: string;
}

export type FieldErrors = Partial<Record<keyof CardFields | 'numbers', string>>;

export type Validation = { ok: true; card: CardData | null } | { ok: false; message: string; fields: FieldErrors };

/**
 * Checks the form before saving (account spec §5): at least 1 and at most 20 numbers; new card
 * data (or no saved card) needs every field, then each is checked. `hasSavedCard` lets the
 * numbers and the toggle change without typing the card again.
 */
export function validateForm(form: FormState, hasSavedCard: boolean, today: Date = new Date()): Validation {
  if (form.numbers.length < 1) return { ok: false, message: AUTOPAY_MESSAGES.pickOne, fields: { numbers: AUTOPAY_MESSAGES.pickOne } };
  if (form.numbers.length > MAX_CAPTIVE)
    return { ok: false, message: AUTOPAY_MESSAGES.tooMany, fields: { numbers: AUTOPAY_MESSAGES.tooMany } };
  const c = form.card;
  if (!hasCardInput(c) && hasSavedCard) return { ok: true, card: null };

  const missing: FieldErrors = {};
  for (const k of Object.keys(EMPTY_CARD) as Array<keyof CardFields>) {
    if (!String(c[k] ?? '').trim()) missing[k] = AUTOPAY_MESSAGES.fieldRequired;
  }
  if (Object.keys(missing).length) return { ok: false, message: AUTOPAY_MESSAGES.cardIncomplete, fields: missing };

  const fields: FieldErrors = {};
  if (!isValidCardNumber(c.number)) fields.number = AUTOPAY_MESSAGES.cardNumberInvalid;
  const exp = parseExpiry(c.expiry);
  if (!exp) fields.expiry = AUTOPAY_MESSAGES.expiryInvalid;
  else if (isExpired(exp, today)) fields.expiry = AUTOPAY_MESSAGES.cardExpired;
  const cvv = onlyDigits(c.cvv);
  // 3 digits, 4 for Amex (as the tokenizer checks).
  if (cvv !== c.cvv.trim() || cvv.length !== cvvLength(cardBrand(onlyDigits(c.number)))) fields.cvv = AUTOPAY_MESSAGES.cvvInvalid;
  if (!isValidDoc(c.doc)) fields.doc = AUTOPAY_MESSAGES.docInvalid;
  const first = Object.values(fields)[0];
  if (first || !exp) return { ok: false, message: first ?? AUTOPAY_MESSAGES.expiryInvalid, fields };

  return {
    ok: true,
    card: {
      card_number: onlyDigits(c.number),
      expiration_month: exp.month,
      expiration_year: exp.year,
      security_code: cvv,
      cardholder_name: c.holder.trim().replace(/\s+/g, ' '),
      doc_number: onlyDigits(c.doc),
    },
  };
}
