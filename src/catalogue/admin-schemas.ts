import { z } from 'zod';
import { Id, PageLimit, PageOffset } from '../platform/validation';
import { parseId } from '../shared/validation';

/**
 * The admin console's e-book commands and queries (account spec §2/§5/§7). Prices are typed in
 * reais (`price`, `prize`: "19,90", "19.90", 19.9, "R$ 1.234,56") or sent in cents (`price_cents`,
 * `prize_cents` / `default_prize_cents`) and stored in cents.
 */

export const AdminInfoproductId = Id('E-book inválido.');

/** A money amount typed in reais → cents, exactly (no float rounding of the text). */
export function reaisToCents(v: unknown): number | null | typeof NaN {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return NaN;
    const c = Math.round(v * 100);
    return Math.abs(c - v * 100) < 1e-6 ? c : NaN;
  }
  if (typeof v !== 'string') return NaN;
  let s = v
    .trim()
    .replace(/^R\$\s*/i, '')
    .replace(/\s+/g, '');
  if (s === '') return v.trim() === '' ? null : NaN; // 'R$' alone is not an amount
  if (s.includes(',')) {
    // pt-BR: '.' groups thousands, ',' is the decimal mark.
    if (!/^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+(,\d{1,2})?$/.test(s)) return NaN;
    s = s.replace(/\./g, '').replace(',', '.');
  } else if (!/^\d+(\.\d{1,2})?$/.test(s)) return NaN;
  const [int, frac = ''] = s.split('.');
  const cents = Number(int) * 100 + Number(frac.padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : NaN;
}

const MAX_CENTS = 100_000_000;

/** Reais as typed → cents (null for empty). */
const Reais = (label: string) =>
  z.unknown().transform((v, ctx): number | null => {
    const c = reaisToCents(v);
    if (c === null) return null;
    if (Number.isNaN(c)) {
      ctx.addIssue({ code: 'custom', message: `${label} inválido. Use reais, por exemplo 19,90.` });
      return z.NEVER;
    }
    if (c > MAX_CENTS) {
      ctx.addIssue({ code: 'custom', message: `${label} é alto demais.` });
      return z.NEVER;
    }
    return c;
  });

/** Cents: a whole number ≥ 0 (a numeric text too), or null for empty. */
const Cents = (label: string) =>
  z.unknown().transform((v, ctx): number | null => {
    if (v === null || v === undefined || v === '') return null;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 0) {
      ctx.addIssue({ code: 'custom', message: `${label} deve ser um número inteiro de centavos, 0 ou mais.` });
      return z.NEVER;
    }
    if (n > MAX_CENTS) {
      ctx.addIssue({ code: 'custom', message: `${label} é alto demais.` });
      return z.NEVER;
    }
    return n;
  });

const TotalNumbers = z.unknown().transform((v, ctx): number | undefined => {
  if (v === null || v === undefined || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  const f = Math.floor(n);
  if (!Number.isFinite(n) || f < 1 || f > 1000) {
    ctx.addIssue({ code: 'custom', message: 'A quantidade de números deve ficar entre 1 e 1000.' });
    return z.NEVER;
  }
  return f;
});

const optText = (max: number, label: string) =>
  z
    .string({ error: `${label} deve ser um texto.` })
    .trim()
    .max(max, `${label} pode ter no máximo ${max} caracteres.`)
    .nullable()
    .optional()
    .transform((v) => (v === '' ? null : v));

const SkuInput = z
  .string({ error: 'Informe o SKU.' })
  .trim()
  .min(1, 'Informe o SKU.')
  .max(120, 'O SKU pode ter no máximo 120 caracteres.')
  .regex(/^[A-Za-z0-9._-]+$/, 'O SKU só pode ter letras sem acento, números, ponto, hífen e sublinhado.')
  .refine((v) => !/^\d+$/.test(v), 'O SKU não pode ser só números (seria confundido com o id).');

const TitleInput = z
  .string({ error: 'Informe o título.' })
  .trim()
  .min(1, 'Informe o título.')
  .max(200, 'O título pode ter no máximo 200 caracteres.');

/** A cover: an http(s) URL, a site path ('/covers/x.svg') or a bare file name under /covers. */
const CoverUrl = z
  .string({ error: 'A capa deve ser um endereço.' })
  .trim()
  .max(500, 'O endereço da capa pode ter no máximo 500 caracteres.')
  .refine(
    (v) => v === '' || /^https?:\/\/[^\s"'<>]+$/i.test(v) || /^\/(?!\/)[^\s"'<>]*$/.test(v) || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v),
    'Capa inválida: use um endereço http(s) ou envie uma imagem.',
  )
  .nullable()
  .optional()
  .transform((v) => (v === '' ? null : v));

const Bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'Use verdadeiro ou falso.' })
  .transform((v) => v === true || v === 'true' || v === '1');

const CategoryRef = z.unknown().transform((v, ctx): number | null | undefined => {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  const id = parseId(v);
  if (id === null) {
    ctx.addIssue({ code: 'custom', message: 'Categoria inválida.' });
    return z.NEVER;
  }
  return id;
});

const CategorySlug = z
  .string({ error: 'Categoria inválida.' })
  .trim()
  .toLowerCase()
  .max(60, 'Categoria inválida.')
  .refine((v) => v === '' || /^[a-z0-9-]+$/.test(v), 'Categoria inválida.')
  .nullable()
  .optional();

/** The form's body with the account spec's names (account spec §7) and the cents aliases; every field optional here. */
const ProductFields = z
  .object(
    {
      sku: SkuInput.optional(),
      title: TitleInput.optional(),
      name: TitleInput.optional(),
      subtitle: optText(300, 'O subtítulo'),
      description: optText(5000, 'A descrição'),
      cover_url: CoverUrl,
      price: Reais('Preço').optional(),
      price_cents: Cents('O preço').optional(),
      prize: Reais('Prêmio').optional(),
      prize_cents: Cents('O prêmio').optional(),
      default_prize_cents: Cents('O prêmio').optional(),
      total_numbers: TotalNumbers.optional(),
      default_total_numbers: TotalNumbers.optional(),
      active: Bool.optional(),
      category_id: CategoryRef.optional(),
      category_slug: CategorySlug,
      open_draw: Bool.optional(),
    },
    { error: 'Envie um objeto JSON.' },
  )
  .transform((v) => ({
    sku: v.sku,
    title: v.title ?? v.name,
    subtitle: v.subtitle,
    description: v.description,
    cover_url: v.cover_url,
    // Cents win over reais when both are sent (a client that knows cents means them).
    price_cents: v.price_cents !== undefined ? v.price_cents : v.price,
    prize_cents: v.prize_cents ?? v.default_prize_cents ?? (v.prize === undefined ? undefined : (v.prize ?? 0)),
    total_numbers: v.default_total_numbers ?? v.total_numbers,
    active: v.active,
    category_id: v.category_id,
    category_slug: v.category_slug === '' ? null : v.category_slug,
    open_draw: v.open_draw,
  }));
export type ProductFields = z.output<typeof ProductFields>;

export const CreateInfoproductCommand = ProductFields.superRefine((v, ctx) => {
  if (v.sku === undefined) ctx.addIssue({ code: 'custom', message: 'Informe o SKU.', path: ['sku'] });
  if (v.title === undefined) ctx.addIssue({ code: 'custom', message: 'Informe o título.', path: ['title'] });
});
export const UpdateInfoproductCommand = ProductFields.refine(
  (v) => Object.entries(v).some(([k, x]) => k !== 'open_draw' && x !== undefined),
  { message: 'Nada para alterar.' },
);

export const AdminInfoproductListQuery = z.object({
  search: z.string().trim().max(100, 'A busca pode ter no máximo 100 caracteres.').optional(),
  active: z.enum(['1', '0', 'true', 'false', 'all'], { error: 'Filtro de ativo inválido. Use 1, 0 ou all.' }).optional(),
  limit: PageLimit(200, 50),
  offset: PageOffset(),
});
