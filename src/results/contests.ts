import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { iso } from '../shared/iso';
import { GAME } from './model';
import { previousScheduledContest } from './time';

/** Which contest decides which draw (RULES W1), and the order of contests (RULES W7). */

/** Draws are decided by contest `c` held at `heldAt` when they closed before it and not before the previous contest. */
export async function windowStart(conn: Db | Trx, contest: number, heldAt: Date): Promise<Date> {
  const prev = await conn('lottery_results')
    .where({ game: GAME })
    .where('contest_number', '<', contest)
    .orderBy('contest_number', 'desc')
    .first('contest_number', 'held_at');
  if (prev && prev.contest_number === contest - 1 && prev.held_at < heldAt) return prev.held_at;
  return previousScheduledContest(heldAt);
}

export async function eligibleDrawIds(conn: Db | Trx, contest: number, heldAt: Date): Promise<number[]> {
  const from = await windowStart(conn, contest, heldAt);
  const rows: Array<{ id: number }> = await conn('draws')
    .where({ status: 'closed' })
    .where('closed_at', '<', heldAt)
    .where('closed_at', '>=', from)
    .orderBy('id')
    .select('id');
  return rows.map((r) => Number(r.id));
}

/**
 * Contests are numbered in date order (RULES W7): a typed contest whose number is lower than a
 * stored contest's while its date is later (or higher with an earlier date) is a typo of the
 * number or of the date: 409 with both, unless the operator insists (force).
 */
export async function assertContestOrder(conn: Db | Trx, contest: number, heldAt: Date) {
  const clash: { contest_number: number; held_at: Date } | undefined = await conn('lottery_results')
    .where({ game: GAME })
    .where((w) =>
      w
        .where((a) => a.where('contest_number', '>', contest).where('held_at', '<', heldAt))
        .orWhere((b) => b.where('contest_number', '<', contest).where('held_at', '>', heldAt)),
    )
    .orderByRaw('abs(contest_number - ?)', [contest])
    .first('contest_number', 'held_at');
  if (!clash) return;
  const day = (d: Date) => d.toLocaleString('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
  throw errors.conflict(
    'contest_out_of_order',
    `O concurso ${contest} (${day(heldAt)}) está fora de ordem: o concurso ${clash.contest_number} já foi registrado com a data ${day(clash.held_at)}. ` +
      'Confira o número e a data do concurso; para registrar mesmo assim, use --force.',
    { conflicting_contest: clash.contest_number, conflicting_drawn_at: iso(clash.held_at) },
  );
}
