import { z } from 'zod';
import { Id, PageLimit, PageOffset } from '../platform/validation';
import { parseId } from '../shared/validation';
import type * as q from './queries';
import { DRAW_STATUS_FILTER_NAMES } from './serializers';

/** What the admin console's draws accept (RULES D3, D6, N7), and what their audit entries record of a draw. */

export const AdminDrawId = Id('Sorteio inválido.');

/** The spec's status words (open/aberto, closed/fechado); `drawn` is never set by hand. */
const StatusInput = z
  .string({ error: 'Status inválido. Use open ou closed.' })
  .trim()
  .toLowerCase()
  .transform((v, ctx) => {
    if (v === 'open' || v === 'aberto') return 'open' as const;
    if (v === 'closed' || v === 'fechado') return 'closed' as const;
    ctx.addIssue({ code: 'custom', message: 'Status inválido. Use open ou closed.' });
    return z.NEVER;
  });

/** A whole number from a JSON number or a numeric text, floored (spec §5 "floored"). */
const floored = (label: string) =>
  z.unknown().transform((v, ctx) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
    if (v === undefined) ctx.addIssue({ code: 'custom', message: 'Campo obrigatório.' });
    else if (!Number.isFinite(n) || !Number.isSafeInteger(Math.floor(n)))
      ctx.addIssue({ code: 'custom', message: `${label} deve ser um número.` });
    else return Math.floor(n);
    return z.NEVER;
  });

const Title = z
  .string({ error: 'O título deve ser um texto.' })
  .trim()
  .min(1, 'Informe o título do sorteio.')
  .max(200, 'O título pode ter no máximo 200 caracteres.');
const Price = floored('O preço').pipe(z.number().min(0, 'O preço não pode ser negativo.').max(100_000_000, 'O preço é alto demais.'));
const Total = floored('A quantidade de números').pipe(
  z.number().min(1, 'A quantidade de números deve ser pelo menos 1.').max(1000, 'A quantidade de números pode ser no máximo 1000.'),
);
const MaxPerUser = floored('O limite por usuário').pipe(
  z.number().min(0, 'O limite por usuário não pode ser negativo.').max(1000, 'O limite por usuário pode ser no máximo 1000.'),
);
const Prize = floored('O prêmio').pipe(z.number().min(0, 'O prêmio não pode ser negativo.').max(1_000_000_000, 'O prêmio é alto demais.'));
/** An e-book id by the one id rule, or null / '' for a draw without e-book. */
const ProductRef = z.unknown().transform((v, ctx): number | null => {
  if (v === null || v === '') return null;
  const id = parseId(v);
  if (id === null) {
    ctx.addIssue({ code: 'custom', message: 'E-book inválido.' });
    return z.NEVER;
  }
  return id;
});

/** The dialog's body with the spec's names and aliases; every field optional (create fills defaults). */
const DrawFields = z
  .object({
    title: Title.optional(),
    name: Title.optional(),
    status: StatusInput.optional(),
    price_cents: Price.nullable().optional(),
    ticket_price_cents: Price.nullable().optional(),
    numbers_total: Total.optional(),
    total_numbers: Total.optional(),
    max_per_user: MaxPerUser.optional(),
    limit_per_user: MaxPerUser.optional(),
    prize_cents: Prize.optional(),
    infoproduct_id: ProductRef.optional(),
  })
  .transform((v) => ({
    title: v.title ?? v.name,
    status: v.status,
    // A positive price is the draw's own; 0 or null means "the product's price, else the config's" (spec §5).
    price: v.price_cents !== undefined ? v.price_cents : v.ticket_price_cents,
    total_numbers: v.numbers_total ?? v.total_numbers,
    max_per_user: v.max_per_user ?? v.limit_per_user,
    prize_cents: v.prize_cents,
    infoproduct_id: v.infoproduct_id,
  }));
export type DrawFields = z.output<typeof DrawFields>;

export const CreateDrawCommand = DrawFields.refine((v) => v.title !== undefined, {
  message: 'Informe o título do sorteio.',
  path: ['title'],
});
export const UpdateDrawCommand = DrawFields.refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nada para alterar.' });
export const StatusCommand = z.object({ status: StatusInput }, { error: 'Envie um objeto JSON.' });
export const TicketPriceCommand = z.object({
  price_cents: floored('O preço do bilhete').pipe(
    z.number().min(0, 'O preço do bilhete não pode ser negativo.').max(100_000_000, 'O preço do bilhete é alto demais.'),
  ),
});
/** The draw and the sold count the admin confirmed ('NOVO SORTEIO'); both optional, checked when sent. */
export const NewSeriesCommand = z.object({
  draw_id: AdminDrawId.optional(),
  confirm_sold: floored('A quantidade de vendidos').pipe(z.number().min(0)).optional(),
});
export const AdminDrawListQuery = z.object({
  limit: PageLimit(200, 50),
  offset: PageOffset(),
  status: z.enum(DRAW_STATUS_FILTER_NAMES, { error: 'Status inválido. Use open, closed ou sorteado.' }).optional(),
  infoproduct_id: Id('E-book inválido.').optional(),
  search: z.string().trim().max(100, 'A busca pode ter no máximo 100 caracteres.').optional(),
});

const DRAW_AUDIT_FIELDS = [
  'title',
  'status',
  'infoproduct_id',
  'total_numbers',
  'prize_cents',
  'ticket_price_cents_override',
  'max_per_user',
  'closed_at',
] as const;
export function drawAuditSnapshot(d: q.DrawRow | undefined | null) {
  if (!d) return null;
  const out: Record<string, unknown> = { id: d.id };
  for (const k of DRAW_AUDIT_FIELDS) out[k] = d[k];
  return out;
}
