import { z } from 'zod';
import type { Conn } from './db';

/**
 * Operator-tunable settings kept in app_config (one row per key, JSON value).
 * Every key has a default and a schema; reads merge stored values over defaults.
 */
export const AppConfigSchema = z.object({
  banner_title: z.string().max(240),
  max_numbers_per_selection: z.number().int().min(1).max(10),
  ticket_price_cents: z.number().int().min(0),
  reservation_ttl_minutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60),
  main_infoproduct_id: z.number().int().positive().nullable(),
  coupon_cashback_percent: z.number().int().min(0).max(100),
  coupon_validity_days: z.number().int().min(1).max(3650),
  /** The store's contact for winners (results/prize.ts): WhatsApp digits with the country code, and an e-mail. */
  prize_contact_whatsapp: z
    .string()
    .regex(/^\d{12,13}$/)
    .nullable(),
  prize_contact_email: z.string().email().max(254).nullable(),
});
export type AppConfig = z.infer<typeof AppConfigSchema>;

export const APP_CONFIG_DEFAULTS: AppConfig = {
  banner_title: 'Compre seu e-book e escolha seu número da sorte!',
  max_numbers_per_selection: 5,
  ticket_price_cents: 100,
  reservation_ttl_minutes: 15,
  main_infoproduct_id: null,
  coupon_cashback_percent: 100,
  coupon_validity_days: 180,
  prize_contact_whatsapp: null,
  prize_contact_email: null,
};

export async function readAppConfig(conn: Conn): Promise<AppConfig> {
  const rows: Array<{ key: string; value: unknown }> = await conn('app_config').select('key', 'value');
  const stored: Record<string, unknown> = {};
  for (const r of rows) if (r.key in APP_CONFIG_DEFAULTS) stored[r.key] = r.value;
  return AppConfigSchema.parse({ ...APP_CONFIG_DEFAULTS, ...stored });
}

export async function writeAppConfig(conn: Conn, patch: Partial<AppConfig>): Promise<AppConfig> {
  const valid = AppConfigSchema.partial().parse(patch);
  for (const [key, value] of Object.entries(valid)) {
    if (value === undefined) continue;
    await conn('app_config')
      .insert({ key, value: JSON.stringify(value), updated_at: conn.fn.now() })
      .onConflict('key')
      .merge(['value', 'updated_at']);
  }
  return readAppConfig(conn);
}

/**
 * POST /api/config (admins only, RULES U1): the draw settings of the customer area. Accepts the
 * spec's aliases of max_numbers_per_selection (max_select, max_per_selection); at least
 * one setting must be sent.
 */
const maxSelection = z.coerce
  .number({ error: 'O máximo de números por seleção deve ser um número inteiro.' })
  .int('O máximo de números por seleção deve ser um número inteiro.')
  .min(1, 'O máximo de números por seleção deve ser pelo menos 1.')
  .max(10, 'O máximo de números por seleção pode ser no máximo 10.');

export const AdminConfigCommand = z
  .object({
    banner_title: z
      .string({ error: 'O título do banner deve ser um texto.' })
      .trim()
      .max(240, 'O título do banner pode ter no máximo 240 caracteres.')
      .optional(),
    max_numbers_per_selection: maxSelection.optional(),
    max_select: maxSelection.optional(),
    max_per_selection: maxSelection.optional(),
  })
  .transform((v) => {
    const patch: Partial<Pick<AppConfig, 'banner_title' | 'max_numbers_per_selection'>> = {};
    if (v.banner_title !== undefined) patch.banner_title = v.banner_title;
    const max = v.max_numbers_per_selection ?? v.max_select ?? v.max_per_selection;
    if (max !== undefined) patch.max_numbers_per_selection = max;
    return patch;
  })
  .refine((p) => Object.keys(p).length > 0, { message: 'Informe o título do banner ou o máximo de números por seleção.' });
