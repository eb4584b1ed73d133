/**
 * Autopay rules shared by the server and the /conta dialog (account spec §5, §8; RULES A1, A5).
 * Pure functions and texts only: no runtime imports, so the web bundle can import it.
 */
import { isValidCpf, onlyDigits } from './validation';

export const AUTOPAY_MAX_NUMBERS = 20;
/** Captive numbers are labels 00-99 (the main series' 100-number boards). */
export const AUTOPAY_NUMBER_MAX = 99;
/** Digit limits of the card form (account spec §5, §9). */
export const CARD_NUMBER_MAX_DIGITS = 19;
export const DOC_MAX_DIGITS = 18;
export const CVV_MAX_DIGITS = 4;

export const AUTOPAY_MESSAGES = {
  pickOne: 'Selecione pelo menos 1 número para salvar as preferências.',
  tooMany: `Escolha no máximo ${AUTOPAY_MAX_NUMBERS} números cativos.`,
  numberRange: 'Os números cativos vão de 00 a 99.',
  numbersRepeated: 'Não repita números.',
  cardIncomplete: 'Dados do cartão incompletos.',
  saveFailedCard: 'Falha ao salvar. Verifique os dados do cartão.',
  saveFailed: 'Falha ao salvar preferências.',
  cancelFailed: 'Não foi possível cancelar agora.',
  saved: 'Preferências salvas!',
  cancelled: 'Compra automática cancelada.',
  cancelConfirm: 'Tem certeza que deseja cancelar a compra automática? Isso apagará os números cativos e o cartão salvo.',
  tokenFailed: 'Falha ao gerar token do cartão.',
  docInvalid: 'CPF/CNPJ inválido.',
  holderRequired: 'Informe o nome do titular do cartão.',
  cardNumberInvalid: 'Número do cartão inválido.',
  expiryInvalid: 'Validade inválida. Use MM/AA ou MM/AAAA.',
  cardExpired: 'Cartão vencido.',
  cvvInvalid: 'Código de segurança inválido.',
  needCard: 'Cadastre um cartão para ativar a compra automática.',
  numbersTaken: 'Alguns números já são cativos de outra pessoa.',
  tokenInvalid: 'O token do cartão é inválido ou expirou. Digite os dados do cartão novamente.',
} as const;

/** Luhn check of a card number (digits only). */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export type CardBrand = 'visa' | 'master' | 'amex' | 'elo' | 'hipercard' | 'diners' | 'unknown';

/** Mercado Pago's payment_method_id for a card number's prefix (best effort, 'unknown' otherwise). */
export function cardBrand(digits: string): CardBrand {
  if (/^(4011|4312|4389|4514|4576|5041|5066|5067|509|6277|6362|6363|650|6516|6550)/.test(digits)) return 'elo';
  if (/^(606282|3841)/.test(digits)) return 'hipercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^3(0[0-5]|[68])/.test(digits)) return 'diners';
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'master';
  return 'unknown';
}

export const cvvLength = (brand: CardBrand) => (brand === 'amex' ? 4 : 3);

/** 14 digits, not all equal, both check digits valid. */
export function isValidCnpj(v: string): boolean {
  const d = onlyDigits(v);
  if (d.length !== 14 || /^(\d)\1{13}$/.test(d)) return false;
  const digit = (len: number) => {
    const weights = len === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    let sum = 0;
    for (let i = 0; i < len; i++) sum += Number(d[i]) * weights[i];
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  return digit(12) === Number(d[12]) && digit(13) === Number(d[13]);
}

/** CPF or CNPJ (account spec §5: more than 11 digits counts as CNPJ); at most 18 characters typed. */
export function isValidDoc(v: string): boolean {
  const d = onlyDigits(v);
  if (d.length > DOC_MAX_DIGITS) return false;
  return d.length > 11 ? isValidCnpj(d) : isValidCpf(d);
}

/** What GET /api/me/autopay shows of the saved document: CPF ***.456.789-**, CNPJ **.345.678/0001-**. */
export function maskDoc(digits: string | null | undefined): string | null {
  if (!digits) return null;
  if (digits.length === 11) return `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`;
  if (digits.length === 14) return `**.${digits.slice(2, 5)}.${digits.slice(5, 8)}/${digits.slice(8, 12)}-**`;
  return '*'.repeat(digits.length);
}

/**
 * Expiry as typed (MM/AA or MM/AAAA) → {month, year} with a 4-digit year, or null.
 */
export function parseExpiry(v: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(v ?? '');
  if (!m) return null;
  const month = Number(m[1]);
  const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

/** A card is valid through the last day of its expiry month. */
export function isExpired(month: number, year: number, now = new Date()): boolean {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + 1;
  return year < y || (year === y && month < m);
}
