import { z } from 'zod';
import { Id, PageLimit, PageOffset } from '../platform/validation';
import { MESSAGES, isValidEmail, onlyDigits } from '../shared/validation';
import { AdjustmentCents, AdjustmentReason } from '../coupons/admin';

/** The customer registry's commands and queries (console 'Cadastro de Clientes', CLI `users`), and the user row it reads. */

export const AdminUserId = Id('Usuário inválido.');

const Name = z
  .string({ error: MESSAGES.nameRequired })
  .trim()
  .min(1, MESSAGES.nameRequired)
  .max(120, 'O nome pode ter no máximo 120 caracteres.');
const Email = z
  .string({ error: 'E-mail inválido.' })
  .trim()
  .max(254, 'E-mail inválido.')
  .refine(isValidEmail, 'E-mail inválido.')
  .transform((v) => v.toLowerCase());
/** Optional: empty or null clears it; otherwise 10 to 13 digits (area code included). */
const Phone = z.union([z.string(), z.null()], { error: MESSAGES.phoneInvalid }).transform((v, ctx) => {
  const d = onlyDigits(v ?? '');
  if (!d) return null;
  if (d.length < 10 || d.length > 13) {
    ctx.addIssue({ code: 'custom', message: MESSAGES.phoneInvalid });
    return z.NEVER;
  }
  return d;
});
const Cents = z
  .number({ error: 'O saldo deve ser um número de centavos.' })
  .int('O saldo deve ser um número inteiro de centavos.')
  .min(0, 'O saldo não pode ser negativo.')
  .max(100_000_000, 'O saldo é alto demais.');
/** The coupon code is random and made by the server: a client may echo it, never choose it. */
const CouponCodeEcho = z
  .union([z.string().max(40, 'Código do cupom inválido.'), z.null()], { error: 'Código do cupom inválido.' })
  .optional();

const BODY = { error: 'Envie os dados como um objeto JSON.' } as const;

export const CreateUserCommand = z.object(
  {
    name: Name,
    email: Email,
    phone: Phone.optional(),
    is_admin: z.boolean({ error: 'Administrador deve ser verdadeiro ou falso.' }).optional(),
    coupon_code: CouponCodeEcho,
    coupon_value_cents: Cents.optional(),
    coupon_reason: AdjustmentReason.optional(),
    /** The spec's client sends it; the server always makes a random temporary password. */
    set_default_password: z.boolean().optional(),
  },
  BODY,
);

export const UpdateUserCommand = z
  .object(
    {
      name: Name.optional(),
      email: Email.optional(),
      phone: Phone.optional(),
      is_admin: z.boolean({ error: 'Administrador deve ser verdadeiro ou falso.' }).optional(),
      coupon_code: CouponCodeEcho,
      coupon_value_cents: Cents.optional(),
      coupon_reason: AdjustmentReason.optional(),
      reason: AdjustmentReason.optional(),
      set_default_password: z.boolean().optional(),
    },
    BODY,
  )
  .transform(({ reason, ...v }) => ({ ...v, coupon_reason: v.coupon_reason ?? reason }));

export const UserListQuery = z.object({
  search: z.string().trim().max(100, 'A busca pode ter no máximo 100 caracteres.').optional(),
  limit: PageLimit(500, 500),
  offset: PageOffset(),
});

export const CouponAdjustCommand = z.object({ cents: AdjustmentCents, reason: AdjustmentReason }, BODY);

/** The columns of `users` the registry reads. */
export interface UserRecord {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  cpf: string | null;
  role: 'customer' | 'admin';
  is_admin: boolean;
  coupon_code: string | null;
  admin_email_proved: string | null;
  created_at: Date;
  anonymized_at: Date | null;
}
export const COLUMNS = [
  'id',
  'name',
  'email',
  'phone',
  'cpf',
  'role',
  'is_admin',
  'coupon_code',
  'admin_email_proved',
  'created_at',
  'anonymized_at',
];

/** What an audit entry keeps of an account (no hash, no CPF). */
export function snapshot(u: UserRecord, cents?: number) {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    phone: u.phone,
    is_admin: u.is_admin,
    role: u.role,
    coupon_code: u.coupon_code,
    ...(cents !== undefined ? { coupon_value_cents: cents } : {}),
  };
}
