import { z } from 'zod';
import { Id } from '../platform/validation';
import { onlyDigits } from '../shared/validation';
import {
  AUTOPAY_MAX_NUMBERS,
  AUTOPAY_MESSAGES as M,
  AUTOPAY_NUMBER_MAX,
  CARD_NUMBER_MAX_DIGITS,
  CVV_MAX_DIGITS,
  DOC_MAX_DIGITS,
  cardBrand,
  cvvLength,
  isExpired,
  isValidDoc,
  luhnValid,
} from '../shared/autopay';

/** The saved card's columns, cleared when a profile's card is removed (the card and its holder's data go). */
export const CARD_CLEARED = { provider_card_id: null, brand: null, last4: null, holder_name: null, doc_number: null } as const;

/** A captive number: an integer 0-99 (a two-digit label such as "07" is accepted too). */
const CaptiveNumber = z.preprocess(
  (v) => (typeof v === 'string' && /^\d{1,2}$/.test(v.trim()) ? Number(v.trim()) : v),
  z.number({ error: M.numberRange }).int(M.numberRange).min(0, M.numberRange).max(AUTOPAY_NUMBER_MAX, M.numberRange),
);

/** POST /api/me/autopay {active, numbers, holder_name, doc_number, card_token?} */
export const SaveAutopayCommand = z.object({
  active: z.boolean({ error: 'Informe se a compra automática está ativa (true ou false).' }).default(true),
  numbers: z
    .array(CaptiveNumber, { error: M.pickOne })
    .min(1, M.pickOne)
    .max(AUTOPAY_MAX_NUMBERS, M.tooMany)
    .refine((a) => new Set(a).size === a.length, M.numbersRepeated)
    .transform((a) => [...a].sort((x, y) => x - y)),
  holder_name: z.string({ error: M.holderRequired }).trim().max(120, 'Use no máximo 120 caracteres no nome do titular.').nullish(),
  doc_number: z.string({ error: M.docInvalid }).trim().max(32, M.docInvalid).nullish(),
  card_token: z.string({ error: M.tokenInvalid }).trim().max(200, M.tokenInvalid).nullish(),
});
export type SaveAutopay = z.infer<typeof SaveAutopayCommand>;

/** A document as shown by GET (masked): sent back unchanged, it means "keep the saved one". */
export const isMaskedDoc = (v: string) => /[*•]/.test(v);

const digitsField = (max: number, message: string) =>
  z
    .union([z.string(), z.number()], { error: message })
    .transform((v) => (typeof v === 'number' ? String(v) : v.replace(/[\s.-]/g, '')))
    .pipe(z.string().max(max, message));

/**
 * POST /api/sandbox/card-tokens (Mercado Pago's card token request): Luhn, expiry not past, CVV
 * length of the brand, holder and CPF/CNPJ. The card number is only ever used to compute brand,
 * last4 and the test outcome: never stored, never logged, never echoed in an error.
 */
export const SandboxTokenCommand = z
  .object({
    card_number: digitsField(CARD_NUMBER_MAX_DIGITS + 6, M.cardNumberInvalid),
    expiration_month: z.coerce.number({ error: M.expiryInvalid }).int(M.expiryInvalid).min(1, M.expiryInvalid).max(12, M.expiryInvalid),
    expiration_year: z.coerce
      .number({ error: M.expiryInvalid })
      .int(M.expiryInvalid)
      .min(0, M.expiryInvalid)
      .max(9999, M.expiryInvalid)
      .transform((y) => (y < 100 ? 2000 + y : y))
      .pipe(z.number().min(2000, M.expiryInvalid)),
    security_code: digitsField(CVV_MAX_DIGITS, M.cvvInvalid),
    cardholder_name: z
      .string({ error: M.holderRequired })
      .trim()
      .min(2, M.holderRequired)
      .max(120, 'Use no máximo 120 caracteres no nome do titular.'),
    doc_number: z
      .string({ error: M.docInvalid })
      .trim()
      .max(DOC_MAX_DIGITS + 4, M.docInvalid),
  })
  .superRefine((v, ctx) => {
    const digits = v.card_number;
    if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits))
      ctx.addIssue({ code: 'custom', path: ['card_number'], message: M.cardNumberInvalid });
    else if (!new RegExp(`^\\d{${cvvLength(cardBrand(digits))}}$`).test(v.security_code))
      ctx.addIssue({ code: 'custom', path: ['security_code'], message: M.cvvInvalid });
    if (isExpired(v.expiration_month, v.expiration_year))
      ctx.addIssue({ code: 'custom', path: ['expiration_year'], message: M.cardExpired });
    else if (v.expiration_year > new Date().getUTCFullYear() + 25)
      ctx.addIssue({ code: 'custom', path: ['expiration_year'], message: M.expiryInvalid });
    if (!isValidDoc(v.doc_number) || onlyDigits(v.doc_number).length < 11)
      ctx.addIssue({ code: 'custom', path: ['doc_number'], message: M.docInvalid });
  });

export const RunsQuery = z.object({
  draw_id: Id('Sorteio inválido.').optional(),
  status: z
    .enum(['held', 'charging', 'approved', 'failed', 'released', 'skipped', 'provider_refused'], { error: 'Status inválido.' })
    .optional(),
  limit: z.coerce.number({ error: 'limit deve ser um número.' }).int().min(1).max(500).default(50),
  offset: z.coerce.number({ error: 'offset deve ser um número.' }).int().min(0).max(1_000_000).default(0),
});

export const DrawIdParam = Id('Sorteio inválido.');
