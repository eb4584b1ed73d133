/**
 * The rules of the autopay form ('Compra automática - número cativo', account spec §5 and §9),
 * as pure functions: picking captive numbers, the card fields (digits, expiry, CPF/CNPJ) and
 * whether anything changed. The dialog (AutopayDialog.tsx) only wires them to the inputs.
 */
import { isValidCpf, maskCpf, onlyDigits } from '../../../../src/shared/validation';

export { onlyDigits };

/** Account spec §9. */
export const MAX_CAPTIVE = 20;
export const CARD_DIGITS_MAX = 19;
export const DOC_DIGITS_MAX = 18;
export const CVV_DIGITS_MAX = 4;

/** The texts of account spec §5 and §8, with their accents. */
export const AUTOPAY_MESSAGES = {
  noNumbers: 'Selecione pelo menos 1 número para salvar as preferências.',
  tooMany: `Você pode escolher no máximo ${MAX_CAPTIVE} números cativos.`,
  cardIncomplete: 'Dados do cartão incompletos.',
  cardNumberInvalid: 'Número do cartão inválido.',
  expiryInvalid: 'Validade inválida. Use MM/AA ou MM/AAAA.',
  expired: 'Cartão vencido.',
  cvvInvalid: 'CVV inválido.',
  docInvalid: 'CPF/CNPJ inválido.',
  saveCardFailed: 'Falha ao salvar. Verifique os dados do cartão.',
  saveFailed: 'Falha ao salvar preferências.',
  saved: 'Preferências salvas!',
  cancelConfirm: 'Tem certeza que deseja cancelar a compra automática? Isso apagará os números cativos e o cartão salvo.',
  cancelFailed: 'Não foi possível cancelar agora.',
  cancelled: 'Compra automática cancelada.',
  loadFailed: 'Não foi possível carregar a compra automática.',
} as const;

/* ------------------------------------------------------------------------------------------ */
/* Captive numbers                                                                            */
/* ------------------------------------------------------------------------------------------ */

export const pad2 = (n: number) => String(n).padStart(2, '0');

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

/** Luhn check of 13 to 19 digits. */
export function isValidCardNumber(v: string): boolean {
  const d = onlyDigits(v);
  if (d.length < 13 || d.length > CARD_DIGITS_MAX) return false;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let x = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) {
      x *= 2;
      if (x > 9) x -= 9;
    }
    sum += x;
  }
  return sum % 10 === 0;
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

/** 'MM/AA' or 'MM/AAAA' (the slash may be missing or be a '-') → month and 4-digit year; anything else → null. */
export function parseExpiry(v: string): Expiry | null {
  const m = /^\s*(\d{2})\s*[/-]?\s*(\d{2}|\d{4})\s*$/.exec(v ?? '');
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (year < 2000) return null;
  return { month, year };
}

/** A card is valid through the last day of its expiry month. */
export function isExpired(e: Expiry, today: Date = new Date()): boolean {
  const y = today.getFullYear();
  const m = today.getMonth() + 1;
  return e.year < y || (e.year === y && e.month < m);
}

export const formatCvv = (v: string) => onlyDigits(v).slice(0, CVV_DIGITS_MAX);

/** CPF/CNPJ: digits only, at most 18 (account spec §5); more than 11 digits counts as a CNPJ. */
export function docDigits(v: string): string {
  return onlyDigits(v).slice(0, DOC_DIGITS_MAX);
}

export function docKind(v: string): 'CPF' | 'CNPJ' {
  return onlyDigits(v).length > 11 ? 'CNPJ' : 'CPF';
}

/** 14 digits, not all equal, both check digits valid. */
export function isValidCnpj(v: string): boolean {
  const d = onlyDigits(v);
  if (d.length !== 14 || /^(\d)\1{13}$/.test(d)) return false;
  const digit = (len: number) => {
    let sum = 0;
    let w = len - 7;
    for (let i = 0; i < len; i++) {
      sum += Number(d[i]) * w;
      w = w === 2 ? 9 : w - 1;
    }
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  return digit(12) === Number(d[12]) && digit(13) === Number(d[13]);
}

/** A valid CPF (11 digits) or CNPJ (more than 11 digits: must be a valid 14-digit CNPJ). */
export function isValidDoc(v: string): boolean {
  return docKind(v) === 'CNPJ' ? isValidCnpj(v) : isValidCpf(v);
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

export type Validation =
  | { ok: true; card: CardData | null }
  | { ok: false; message: string; fields: FieldErrors };

/**
 * Checks the form before saving (account spec §5): at least 1 and at most 20 numbers; new card
 * data (or no saved card) needs every field, then each is checked. `hasSavedCard` lets the
 * numbers and the toggle change without typing the card again.
 */
export function validateForm(form: FormState, hasSavedCard: boolean, today: Date = new Date()): Validation {
  if (form.numbers.length < 1) return { ok: false, message: AUTOPAY_MESSAGES.noNumbers, fields: { numbers: AUTOPAY_MESSAGES.noNumbers } };
  if (form.numbers.length > MAX_CAPTIVE) return { ok: false, message: AUTOPAY_MESSAGES.tooMany, fields: { numbers: AUTOPAY_MESSAGES.tooMany } };
  const c = form.card;
  if (!hasCardInput(c) && hasSavedCard) return { ok: true, card: null };

  const missing: FieldErrors = {};
  for (const k of Object.keys(EMPTY_CARD) as Array<keyof CardFields>) {
    if (!String(c[k] ?? '').trim()) missing[k] = 'Campo obrigatório.';
  }
  if (Object.keys(missing).length) return { ok: false, message: AUTOPAY_MESSAGES.cardIncomplete, fields: missing };

  const fields: FieldErrors = {};
  if (!isValidCardNumber(c.number)) fields.number = AUTOPAY_MESSAGES.cardNumberInvalid;
  const exp = parseExpiry(c.expiry);
  if (!exp) fields.expiry = AUTOPAY_MESSAGES.expiryInvalid;
  else if (isExpired(exp, today)) fields.expiry = AUTOPAY_MESSAGES.expired;
  const cvv = onlyDigits(c.cvv);
  if (cvv.length < 3 || cvv.length > CVV_DIGITS_MAX || cvv !== c.cvv.trim()) fields.cvv = AUTOPAY_MESSAGES.cvvInvalid;
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
