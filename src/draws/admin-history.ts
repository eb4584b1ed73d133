import { z } from 'zod';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { Id, PageLimit, PageOffset } from '../platform/validation';
import { iso } from '../shared/iso';
import type { DrawParticipants, HeldDraw, Page, Participant, ParticipantEntry, ParticipantNumber } from '../shared/api/admin-history';
import * as q from './queries';
import { drawStatusWord, wholeDays } from './serializers';
import { resultAlertsFor } from './result-alerts';

/**
 * The admin console's held raffles (account spec §2 'Held raffles'): closed and drawn
 * draws, newest first, searchable by title, draw number or Lotomania contest, and each draw's
 * participants grouped by user. Reads only.
 */

export const HistoryDrawId = Id('Sorteio inválido.');

export const Offset = PageOffset({ value: 1_000_000, message: 'O deslocamento é grande demais.' });
export const Search = z
  .string({ error: 'A busca deve ser um texto.' })
  .trim()
  .max(100, 'A busca pode ter no máximo 100 caracteres.')
  .optional();

export const HistoryQuery = z.object({
  limit: PageLimit(200, 50),
  offset: Offset,
  /** closed (awaiting the contest) or sorteado (decided; 'drawn' too) only; both when absent. */
  status: z.enum(['closed', 'sorteado', 'drawn'], { error: 'Status inválido. Use closed ou sorteado.' }).optional(),
  search: Search,
});

export const ParticipantsQuery = z.object({ limit: PageLimit(1000, 500), offset: Offset });

/** `%term%` for ILIKE, with the pattern characters of the term escaped. */
export const likeTerm = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export { wholeDays };

/**
 * A sale counts (is "live") unless it was voided or its payment was refunded or charged back
 * (RULES W3, the rule of soldNumbersThatCount).
 */
const LIVE_SALE = `s.voided_at IS NULL AND (p.id IS NULL OR p.status NOT IN ('refunded', 'charged_back'))`;

export interface AdminHistoryService {
  history(query: unknown): Promise<Page<HeldDraw>>;
  participants(drawId: number, query?: unknown): Promise<DrawParticipants>;
}

type HistoryRow = q.DrawRow & { winner_name: string | null; sold: number; participants: number };

export function createAdminHistoryService(deps: { db: Db }): AdminHistoryService {
  const { db } = deps;

  return {
    async history(query) {
      const f = HistoryQuery.parse(query ?? {});
      // draws_status (status, id DESC) serves the filter and the order.
      const qb = db('draws as d')
        .leftJoin('users as u', 'u.id', 'd.winner_user_id')
        .joinRaw(
          `LEFT JOIN LATERAL (
             SELECT count(*)::int AS sold, count(DISTINCT s.user_id)::int AS participants
               FROM number_sales s LEFT JOIN payments p ON p.id = s.payment_id
              WHERE s.draw_id = d.id AND ${LIVE_SALE}) c ON true`,
        )
        .whereIn('d.status', f.status === 'closed' ? ['closed'] : f.status ? ['drawn'] : ['closed', 'drawn'])
        .orderBy('d.id', 'desc')
        .limit(f.limit + 1)
        .offset(f.offset)
        .select('d.*', 'u.name as winner_name', 'c.sold', 'c.participants');
      if (f.search) {
        const term = f.search;
        qb.where((w) => {
          w.whereRaw('d.title ILIKE ?', [likeTerm(term)]);
          // A number is a draw number ('007' too) or a contest number.
          if (/^\d{1,9}$/.test(term)) w.orWhere('d.id', Number(term)).orWhere('d.contest_number', Number(term));
        });
      }
      const rows: HistoryRow[] = await qb;
      const now = Date.now();
      const alerts = await resultAlertsFor(db, rows.slice(0, f.limit));
      return {
        items: rows.slice(0, f.limit).map((d) => ({
          id: d.id,
          draw_id: d.id,
          title: d.title,
          status: drawStatusWord(d.status) as HeldDraw['status'],
          total_numbers: d.total_numbers,
          sold: d.sold,
          participants: d.participants,
          opened_at: iso(d.opened_at),
          closed_at: iso(d.closed_at),
          days_open: wholeDays(d.opened_at, d.closed_at ?? d.realized_at, now),
          realized_at: iso(d.realized_at),
          contest_number: d.contest_number,
          winner_user_id: d.winner_user_id,
          winner_name: d.winner_name,
          winner_number: d.winner_number,
          no_winner: d.no_winner,
          product_name: d.product_name,
          product_link: d.product_link,
          redeemed: d.redeemed,
          result_alert: alerts.get(d.id) ?? null,
        })),
        hasMore: rows.length > f.limit,
        limit: f.limit,
        offset: f.offset,
      };
    },

    async participants(drawId, query) {
      const f = ParticipantsQuery.parse(query ?? {});
      const draw = await q.findDraw(db, drawId);
      if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
      const [sales, holds] = await Promise.all([
        db('number_sales as s')
          .leftJoin('payments as p', 'p.id', 's.payment_id')
          .where('s.draw_id', drawId)
          .orderBy(['s.n', 's.id'])
          .select('s.user_id', 's.n', 's.source', 's.payment_id', 's.voided_at', 'p.status as payment_status') as Promise<
          Array<{
            user_id: number;
            n: number;
            source: NonNullable<ParticipantEntry['payment_kind']>;
            payment_id: number | null;
            voided_at: Date | null;
            payment_status: string | null;
          }>
        >,
        // Numbers held right now (a hold past its time no longer counts, even before the sweep).
        db('draw_numbers as dn')
          .join('reservations as r', 'r.id', 'dn.reservation_id')
          .where({ 'dn.draw_id': drawId, 'dn.status': 'reserved', 'r.status': 'active' })
          .where('r.expires_at', '>', db.fn.now())
          .orderBy('dn.n')
          .select('r.user_id', 'dn.n') as Promise<Array<{ user_id: number; n: number }>>,
      ]);
      const byUser = new Map<number, ParticipantEntry[]>();
      const add = (userId: number, e: ParticipantEntry) => {
        const list = byUser.get(userId) ?? [];
        list.push(e);
        byUser.set(userId, list);
      };
      let sold = 0;
      for (const s of sales) {
        const reversed =
          s.payment_status === 'refunded' || s.payment_status === 'charged_back' ? (s.payment_status as 'refunded' | 'charged_back') : null;
        const status: ParticipantEntry['status'] = reversed ?? (s.voided_at ? 'voided' : 'approved');
        if (status === 'approved') sold++;
        add(s.user_id, { number: s.n, status, payment_kind: s.source, payment_id: s.payment_id });
      }
      for (const h of holds) add(h.user_id, { number: h.n, status: 'pending', payment_kind: null, payment_id: null });

      const users: Array<{ id: number; name: string; email: string; phone: string | null }> = byUser.size
        ? await db('users')
            .whereIn('id', [...byUser.keys()])
            .select('id', 'name', 'email', 'phone')
        : [];
      const collator = new Intl.Collator('pt-BR', { sensitivity: 'base' });
      const all: Participant[] = users
        .map((u) => {
          const entries = byUser.get(u.id)!.sort((a, b) => a.number - b.number);
          const counted = entries.filter((e) => e.status === 'approved' || e.status === 'pending');
          return {
            user_id: u.id,
            name: u.name,
            user_name: u.name,
            email: u.email,
            phone: u.phone,
            quantity: counted.length,
            numbers: counted.map((e) => e.number),
            statuses: [...new Set(entries.map((e) => e.status))],
            payment_kinds: [...new Set(entries.map((e) => e.payment_kind).filter((k): k is NonNullable<typeof k> => k !== null))],
            entries,
          };
        })
        .sort((a, b) => collator.compare(a.name, b.name) || a.user_id - b.user_id);
      const page = all.slice(f.offset, f.offset + f.limit);
      const participants: ParticipantNumber[] = page
        .flatMap((p) => p.entries.map((e) => ({ user_id: p.user_id, user_name: p.name, number: e.number, status: e.status })))
        .sort((a, b) => a.number - b.number || a.user_id - b.user_id);
      return {
        draw_id: draw.id,
        status: drawStatusWord(draw.status),
        sold,
        participants,
        items: page,
        hasMore: all.length > f.offset + f.limit,
        limit: f.limit,
        offset: f.offset,
      };
    },
  };
}
