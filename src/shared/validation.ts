/**
 * Registration rules shared by the server (zod schemas in auth) and the web
 * forms, with the spec's messages (account spec §5).
 */
export const MESSAGES = {
  nameRequired: 'Informe seu nome completo.',
  emailInvalid: 'E-mail inválido.',
  loginEmailInvalid: 'Informe um e-mail válido.',
  phoneInvalid: 'Informe um telefone válido com DDD.',
  cpfInvalid: 'CPF inválido.',
  birthdateRequired: 'Informe a data de nascimento.',
  birthdateInvalid: 'Data de nascimento inválida. Use DD/MM/AAAA.',
  underage: 'É necessário ter 18 anos ou mais.',
  passwordRequired: 'Informe uma senha.',
  passwordTooShort: 'A senha deve ter pelo menos 6 caracteres.',
  termsRequired: 'É necessário aceitar os termos.',
} as const;

export const MIN_AGE = 18;
export const MIN_PASSWORD = 6;

export const onlyDigits = (v: string) => (v ?? '').replace(/\D+/g, '');

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export function isValidEmail(v: string): boolean {
  return EMAIL_RE.test((v ?? '').trim()) && v.trim().length <= 254;
}

/** At least 10 digits (area code + number), at most 13 (with country code). */
export function isValidPhone(v: string): boolean {
  const d = onlyDigits(v);
  return d.length >= 10 && d.length <= 13;
}

/** 11 digits, not all equal, both check digits valid. */
export function isValidCpf(v: string): boolean {
  const d = onlyDigits(v);
  if (d.length !== 11 || /^(\d)\1{10}$/.test(d)) return false;
  const digit = (len: number) => {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += Number(d[i]) * (len + 1 - i);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return digit(9) === Number(d[9]) && digit(10) === Number(d[10]);
}

/** Formats digits as 000.000.000-00 while typing. */
export function maskCpf(v: string): string {
  const d = onlyDigits(v).slice(0, 11);
  return d
    .replace(/^(\d{3})(\d)/, '$1.$2')
    .replace(/^(\d{3})\.(\d{3})(\d)/, '$1.$2.$3')
    .replace(/\.(\d{3})(\d{1,2})$/, '.$1-$2');
}

/** (00) 00000-0000 while typing. */
export function maskPhone(v: string): string {
  const d = onlyDigits(v).slice(0, 11);
  if (d.length <= 2) return d.length ? `(${d}` : '';
  if (d.length <= 6) return `(${d.slice(0, 2)}) ${d.slice(2)}`;
  if (d.length <= 10) return `(${d.slice(0, 2)}) ${d.slice(2, 6)}-${d.slice(6)}`;
  return `(${d.slice(0, 2)}) ${d.slice(2, 7)}-${d.slice(7)}`;
}

/** Parses YYYY-MM-DD into a calendar date; null when not a real date. */
export function parseIsoDate(v: string): { y: number; m: number; d: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v ?? '');
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
  return { y, m: mo, d };
}

/** The product's time zone (RULES.md: times are shown in it): calendar rules such as age use its dates. */
export const TIME_ZONE = 'America/Sao_Paulo';

let dateFormat: Intl.DateTimeFormat | null = null;
/** The calendar date of an instant in America/Sao_Paulo, whatever the machine's time zone. */
export function calendarDateInBrazil(at: Date = new Date()): { y: number; m: number; d: number } {
  dateFormat ??= new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
  const parts = Object.fromEntries(dateFormat.formatToParts(at).map((p) => [p.type, p.value]));
  return { y: Number(parts.year), m: Number(parts.month), d: Number(parts.day) };
}

/**
 * Whole years between a YYYY-MM-DD birthdate and the calendar date of `today`
 * in America/Sao_Paulo (a server running in UTC must not let someone turn 18
 * at 21:00 the evening before their birthday). Born on 29 February: the year
 * completes on 1 March in non-leap years.
 */
export function ageOn(birthdate: string, today: Date = new Date()): number | null {
  const b = parseIsoDate(birthdate);
  if (!b) return null;
  const { y: ty, m: tm, d: td } = calendarDateInBrazil(today);
  let age = ty - b.y;
  if (tm < b.m || (tm === b.m && td < b.d)) age--;
  return age;
}

export function isAdult(birthdate: string, today: Date = new Date()): boolean {
  const a = ageOn(birthdate, today);
  return a !== null && a >= MIN_AGE && a < 130;
}

export interface RegisterInput {
  name: string;
  email: string;
  phone: string;
  cpf: string;
  birthdate: string;
  password: string;
  acceptTerms: boolean;
}

/** Field → message for every failing rule; empty object when valid. */
export function validateRegistration(v: Partial<RegisterInput>, today: Date = new Date()): Partial<Record<keyof RegisterInput, string>> {
  const e: Partial<Record<keyof RegisterInput, string>> = {};
  if (!v.name || !v.name.trim()) e.name = MESSAGES.nameRequired;
  if (!v.email || !isValidEmail(v.email)) e.email = MESSAGES.emailInvalid;
  if (!v.phone || !isValidPhone(v.phone)) e.phone = MESSAGES.phoneInvalid;
  if (!v.cpf || !isValidCpf(v.cpf)) e.cpf = MESSAGES.cpfInvalid;
  if (!v.birthdate) e.birthdate = MESSAGES.birthdateRequired;
  else if (!parseIsoDate(v.birthdate)) e.birthdate = MESSAGES.birthdateRequired;
  else if (!isAdult(v.birthdate, today)) e.birthdate = MESSAGES.underage;
  if (!v.password) e.password = MESSAGES.passwordRequired;
  else if (v.password.length < MIN_PASSWORD) e.password = MESSAGES.passwordTooShort;
  if (v.acceptTerms !== true) e.acceptTerms = MESSAGES.termsRequired;
  return e;
}

/**
 * The one id rule (RULES H4): ids in paths, queries and bodies are decimal
 * integers ≥ 1 written canonically — no sign, no leading zero, no exponent, no
 * hex, no fraction — that fit a JS safe integer (PostgreSQL bigserial values we
 * read as numbers). A JSON number is judged by its value (JSON.parse has already
 * turned `1e3` into 1000). Returns null when the value is not such an id.
 */
export const ID_MAX = Number.MAX_SAFE_INTEGER;
const ID_RE = /^[1-9][0-9]{0,15}$/;
export function parseId(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 1 ? v : null;
  if (typeof v !== 'string' || !ID_RE.test(v)) return null;
  const n = Number(v);
  return n <= ID_MAX ? n : null;
}

/** A path segment that reads as a number literal (`12`, `01`, `-1`, `1.5`, `1e3`, `0x0f`) rather than a name. */
export function looksNumeric(v: string): boolean {
  return /^[+-]?(0x[0-9a-f]*|[0-9]*\.?[0-9]+(e[+-]?[0-9]*)?|[0-9]+\.)$/i.test(v);
}
