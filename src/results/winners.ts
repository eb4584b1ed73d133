import { z } from 'zod';
import type { Db, Conn } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { Id, PageLimit } from '../platform/validation';
import type { ReadCache } from '../platform/read-cache';
import type { Logger } from '../platform/logger';
import { iso } from '../shared/iso';
import type { Winner, WinnerList } from '../shared/api/admin-history';
import { likeTerm, Offset, Search, wholeDays } from '../draws/admin-history';
import type { DrawsService } from '../draws/service';

/**
 * Winners and their prizes (console '/admin/vencedores', `winners` CLI; RULES W2, W6): the drawn draws
 * that have a winner, and the prize the admin records for each (product name, product link,
 * redeemed). The winner itself is decided elsewhere (from the Lotomania result, RULES W1, W2); this
 * service only lists winners and edits the prize, in one transaction with an audit entry.
 */

export const WinnerDrawId = Id('Sorteio inválido.');

export const WinnersQuery = z.object({
  limit: PageLimit(200, 50),
  offset: Offset,
  /** Winner name or e-mail, draw title, draw number or contest number. */
  search: Search,
  redeemed: z.enum(['0', '1', 'true', 'false'], { error: 'Use redeemed=1 ou redeemed=0.' }).optional(),
});

const ProductName = z
  .string({ error: 'O nome do produto deve ser um texto.' })
  .trim()
  .max(200, 'O nome do produto pode ter no máximo 200 caracteres.')
  .nullable()
  .transform((v) => (v ? v : null));

const LINK_MESSAGE = 'O link do produto deve ser um endereço http:// ou https:// válido.';
/** An absolute http(s) URL (never javascript:, data:, …), or ''/null to clear it. */
const ProductLink = z
  .string({ error: LINK_MESSAGE })
  .trim()
  .max(2000, 'O link do produto pode ter no máximo 2000 caracteres.')
  .nullable()
  .transform((v, ctx) => {
    if (!v) return null;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: LINK_MESSAGE });
      return z.NEVER;
    }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
      ctx.addIssue({ code: 'custom', message: LINK_MESSAGE });
      return z.NEVER;
    }
    return v;
  });

export const PrizeCommand = z
  .object(
    {
      product_name: ProductName.optional(),
      product_link: ProductLink.optional(),
      redeemed: z.boolean({ error: 'Informe verdadeiro ou falso em redeemed.' }).optional(),
    },
    { error: 'Envie um objeto JSON.' },
  )
  .refine((v) => v.product_name !== undefined || v.product_link !== undefined || v.redeemed !== undefined, {
    message: 'Nada para alterar: envie product_name, product_link ou redeemed.',
  });
export type PrizeCommand = z.output<typeof PrizeCommand>;

/** Who changes a prize: an admin over HTTP, or an operator through the CLI. */
export interface PrizeActor {
  userId: number | null;
  via: 'admin' | 'cli';
}

export interface WinnersService {
  list(query: unknown): Promise<WinnerList>;
  get(drawId: number): Promise<Winner>;
  updatePrize(actor: PrizeActor, drawId: number, input: unknown): Promise<Winner>;
  /** Draws decided with no winner (RULES W2: no drawn number was sold), newest first. */
  listNoWinner(query: unknown): Promise<{ items: NoWinnerDraw[]; hasMore: boolean; limit: number; offset: number }>;
  /** The draw when it was decided with no winner, else null (undecided, unknown, or with a winner). */
  noWinner(drawId: number): Promise<NoWinnerDraw | null>;
}

/** A draw decided by its contest with no winner: never "not yet decided". */
export interface NoWinnerDraw {
  draw_id: number;
  title: string;
  contest_number: number | null;
  realized_at: string | null;
  no_winner: true;
  status: 'SEM VENCEDOR';
}

const NoWinnerQuery = z.object({ limit: PageLimit(200, 50), offset: Offset });

function serializeNoWinner(r: { id: number; title: string; contest_number: number | null; realized_at: Date | null }): NoWinnerDraw {
  return {
    draw_id: r.id,
    title: r.title,
    contest_number: r.contest_number,
    realized_at: iso(r.realized_at),
    no_winner: true,
    status: 'SEM VENCEDOR',
  };
}
const noWinnerQuery = (conn: Conn) =>
  conn('draws').where({ status: 'drawn', no_winner: true }).select('id', 'title', 'contest_number', 'realized_at');

interface WinnerRow {
  id: number;
  title: string;
  contest_number: number | null;
  winner_user_id: number;
  winner_number: number;
  realized_at: Date;
  product_name: string | null;
  product_link: string | null;
  redeemed: boolean;
  winner_name: string;
  winner_email: string;
  winner_phone: string | null;
}

const notFound = () => errors.notFound('winner_not_found', 'Vencedor não encontrado: este sorteio não existe ou ainda não tem vencedor.');

function winnersQuery(conn: Conn) {
  return conn('draws as d')
    .join('users as u', 'u.id', 'd.winner_user_id')
    .where('d.status', 'drawn')
    .whereNotNull('d.winner_number')
    .select(
      'd.id',
      'd.title',
      'd.contest_number',
      'd.winner_user_id',
      'd.winner_number',
      'd.realized_at',
      'd.product_name',
      'd.product_link',
      'd.redeemed',
      'u.name as winner_name',
      'u.email as winner_email',
      'u.phone as winner_phone',
    );
}

export function serializeWinner(r: WinnerRow, now = Date.now()): Winner {
  return {
    draw_id: r.id,
    id: r.id,
    title: r.title,
    contest_number: r.contest_number,
    winner_user_id: r.winner_user_id,
    winner_name: r.winner_name,
    winner_email: r.winner_email,
    winner_phone: r.winner_phone,
    winner_number: r.winner_number,
    realized_at: iso(r.realized_at),
    status: r.redeemed ? 'RESGATADO' : 'NÃO RESGATADO',
    redeemed: r.redeemed,
    days_since: wholeDays(r.realized_at, null, now),
    product_name: r.product_name,
    product_link: r.product_link,
  };
}

const prizeOf = (r: Pick<WinnerRow, 'product_name' | 'product_link' | 'redeemed'>) => ({
  product_name: r.product_name,
  product_link: r.product_link,
  redeemed: r.redeemed,
});

export function createWinnersService(deps: { db: Db; draws: DrawsService; readCache: ReadCache; logger: Logger }): WinnersService {
  const { db } = deps;

  async function get(drawId: number): Promise<Winner> {
    const row: WinnerRow | undefined = await winnersQuery(db).where('d.id', drawId).first();
    if (!row) throw notFound();
    return serializeWinner(row);
  }

  return {
    async list(query) {
      const f = WinnersQuery.parse(query ?? {});
      const qb = winnersQuery(db)
        .orderBy([
          { column: 'd.realized_at', order: 'desc' },
          { column: 'd.id', order: 'desc' },
        ])
        .limit(f.limit + 1)
        .offset(f.offset);
      if (f.redeemed) qb.where('d.redeemed', f.redeemed === '1' || f.redeemed === 'true');
      if (f.search) {
        const term = f.search;
        qb.where((w) => {
          w.whereRaw('u.name ILIKE ?', [likeTerm(term)])
            .orWhereRaw('u.email ILIKE ?', [likeTerm(term)])
            .orWhereRaw('d.title ILIKE ?', [likeTerm(term)]);
          if (/^\d{1,9}$/.test(term)) w.orWhere('d.id', Number(term)).orWhere('d.contest_number', Number(term));
        });
      }
      const rows: WinnerRow[] = await qb;
      const now = Date.now();
      return {
        winners: rows.slice(0, f.limit).map((r) => serializeWinner(r, now)),
        hasMore: rows.length > f.limit,
        limit: f.limit,
        offset: f.offset,
      };
    },

    get,

    async listNoWinner(query) {
      const f = NoWinnerQuery.parse(query ?? {});
      const rows = await noWinnerQuery(db)
        .orderBy([
          { column: 'realized_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(f.limit + 1)
        .offset(f.offset);
      return { items: rows.slice(0, f.limit).map(serializeNoWinner), hasMore: rows.length > f.limit, limit: f.limit, offset: f.offset };
    },

    async noWinner(drawId) {
      const r = await noWinnerQuery(db).where({ id: drawId }).first();
      return r ? serializeNoWinner(r) : null;
    },

    async updatePrize(actor, drawId, input) {
      const cmd = PrizeCommand.parse(input);
      const changed = await db.transaction(async (trx) => {
        // The draw row locked first (the lock order of every draw write).
        const locked = await trx('draws')
          .where({ id: drawId })
          .forUpdate()
          .first('id', 'status', 'winner_user_id', 'winner_number', 'product_name', 'product_link', 'redeemed');
        if (!locked || locked.status !== 'drawn' || locked.winner_user_id == null || locked.winner_number == null) throw notFound();
        const before = prizeOf(locked);
        const after = {
          product_name: cmd.product_name !== undefined ? cmd.product_name : before.product_name,
          product_link: cmd.product_link !== undefined ? cmd.product_link : before.product_link,
          redeemed: cmd.redeemed !== undefined ? cmd.redeemed : before.redeemed,
        };
        if (after.product_name === before.product_name && after.product_link === before.product_link && after.redeemed === before.redeemed)
          return false;
        await trx('draws')
          .where({ id: drawId })
          .update({ ...after, updated_at: trx.fn.now() });
        await audit(trx, {
          actorUserId: actor.userId,
          actor: actor.via,
          action: 'winner.prize_updated',
          entity: 'draw',
          entityId: drawId,
          data: { before, after, winner_user_id: locked.winner_user_id, winner_number: locked.winner_number },
        });
        // The prize shows on the draw's public result and on the winner's draw detail.
        deps.readCache.invalidateAllAfterCommit(trx);
        return true;
      });
      if (changed) {
        deps.draws.invalidateBoard(drawId);
        deps.logger.info({ drawId, actor: actor.via, actorUserId: actor.userId }, 'winner prize updated');
      }
      return get(drawId);
    },
  };
}
