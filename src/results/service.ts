import { errors } from '../platform/errors';
import type { Db, Trx } from '../platform/db';
import { initialsOf } from '../shared/initials';
import { iso } from '../shared/iso';
import type { ContestResult, DecidedDraw, DrawResult, RecordOutcome, ResultPreview } from '../shared/api/results';
import * as q from '../draws/queries';
import { drawStatusWord } from '../draws/serializers';
import { decideWinner } from './winner-rule';
import { assertContestOrder, windowStart } from './contests';
import { correctResult, redecideAfterRefund } from './correct';
import { fetchResults, noDrawOrder } from './fetch';
import {
  correctionHint,
  findResult,
  sameNumbers,
  walkOf,
  type Actor,
  type FetchReport,
  type RefundedSales,
  type ResultsDeps,
  type Source,
} from './model';
import { recordParsed } from './record';
import { ContestNumber, FetchCommand, RecordCommand, TypedRecordCommand } from './schemas';

export type { Actor, FetchReport } from './model';

/**
 * Lotomania results and the draws they decide (RULES W1-W9). One service for the CLI,
 * the admin API and the `results.fetch` job:
 * - a contest's result is stored once (`lottery_results`, unique per game and contest);
 *   recording it again with the same numbers changes nothing, with other numbers is refused
 *   (409) and points to `results correct`, the explicit, audited correction;
 * - a draw closed at T is decided by the first contest held after T: the contest whose date is
 *   after T while the previous contest's is not (the stored previous contest when there is one,
 *   else the previous Mon/Wed/Fri 20:00 Brasília);
 * - deciding a draw locks its row and checks it is still `closed` (never decided twice), stores
 *   winner, number, contest and realized_at with an audit entry holding every input, and mails
 *   the winner through the outbox.
 *
 * The service assembles the runs of this folder: schemas.ts (what commands accept), time.ts
 * (São Paulo's calendar), contests.ts (which contest decides which draw), record.ts (storing a
 * contest), decide.ts (the winner rule run, shared by deciding and re-deciding), correct.ts
 * (corrections and refunds that reach a winner), fetch.ts (the results service), mails.ts.
 */

export interface ResultsService {
  /** Stores a contest's result (once) and decides every draw it decides. */
  record(input: unknown, by: Actor & { source: Source }): Promise<RecordOutcome>;
  /** The operator's explicit correction of a stored result: recomputes the draws it decided, audited with the reason. */
  correct(input: unknown, by: Actor): Promise<RecordOutcome & { redecided: DecidedDraw[] }>;
  /**
   * RULES W8: in the caller's transaction (a refund or chargeback, its draw rows already locked),
   * re-decides each drawn draw among `drawIds` from its stored contest, as a correction does; a
   * draw whose winner still counts is left untouched. Answers the draws whose winner changed.
   */
  redecideAfterRefund(trx: Trx, e: RefundedSales): Promise<DecidedDraw[]>;
  /** A stored contest and the draws it decided. */
  show(contest: number): Promise<ContestResult>;
  /** Fetches from the results service and decides: one contest, or (the job) whatever the closed undecided draws need. */
  fetch(opts?: { contest?: number }, by?: Actor): Promise<FetchReport>;
  /** The public result of a drawn draw. */
  drawResult(drawId: number): Promise<DrawResult>;
  /** Admin: computes the winner of a closed draw for a result, saving nothing. */
  preview(drawId: number, input: unknown): Promise<ResultPreview>;
  /** Admin: records a result for a closed draw (refused when that contest does not decide it). */
  recordForDraw(adminId: number, drawId: number, input: unknown): Promise<{ result: DrawResult; outcome: RecordOutcome }>;
  /** Admin: fetches a contest (or the latest) from the results service and previews it for the draw. */
  fetchPreview(drawId: number, input: unknown): Promise<ResultPreview>;
}

export function createResultsService(deps: ResultsDeps): ResultsService {
  const { db } = deps;

  async function drawOrThrow(conn: Db | Trx, id: number) {
    const d = await q.findDraw(conn, id);
    if (!d) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
    return d;
  }

  async function previewFor(
    d: q.DrawRow,
    cmd: { contest_number: number; numbers: number[] },
    drawnAt: Date | null,
  ): Promise<ResultPreview> {
    if (d.status === 'open') throw errors.conflict('draw_not_closed', 'Feche o sorteio antes de registrar o resultado.');
    const [sold, stored, voided] = await Promise.all([
      q.soldNumbersThatCount(db, d.id),
      findResult(db, cmd.contest_number),
      q.voidedNumbers(db, d.id),
    ]);
    const decision = decideWinner({ numbers: cmd.numbers, totalNumbers: d.total_numbers, sold, voided });
    const user = decision.winner_user_id ? await db('users').where({ id: decision.winner_user_id }).first('name', 'email') : undefined;
    return {
      draw_id: d.id,
      title: d.title,
      status: drawStatusWord(d.status),
      total_numbers: d.total_numbers,
      contest_number: cmd.contest_number,
      drawn_at: iso(drawnAt ?? stored?.held_at ?? null),
      numbers: cmd.numbers,
      walk: decision.walk,
      winning_number: decision.winning_number,
      winner_user_id: decision.winner_user_id,
      winner_name: user?.name ?? null,
      winner_email: user?.email ?? null,
      no_winner: decision.winning_number === null,
      sold_count: sold.length,
      stored_numbers: stored && !sameNumbers(stored.numbers, cmd.numbers) ? stored.numbers : null,
    };
  }

  const service: ResultsService = {
    record(input, by) {
      return recordParsed(deps, TypedRecordCommand.parse(input), by);
    },

    correct(input, by) {
      return correctResult(deps, input, by);
    },

    redecideAfterRefund(trx, e) {
      return redecideAfterRefund(deps, trx, e);
    },

    async show(contest) {
      const c = ContestNumber.parse(contest);
      const row = await findResult(db, c);
      if (!row) throw errors.notFound('result_not_found', `O concurso ${c} não foi registrado.`);
      const draws: Array<q.DrawRow & { winner_name: string | null }> = await db('draws as d')
        .leftJoin('users as u', 'u.id', 'd.winner_user_id')
        .where({ 'd.contest_number': c, 'd.status': 'drawn' })
        .orderBy('d.id')
        .select('d.*', 'u.name as winner_name');
      return {
        contest_number: row.contest_number,
        drawn_at: iso(row.held_at),
        numbers: row.numbers,
        source: row.source,
        created_at: iso(row.created_at),
        draws: draws.map((d) => ({
          draw_id: Number(d.id),
          title: d.title,
          status: drawStatusWord(d.status),
          winning_number: d.winner_number,
          no_winner: d.no_winner,
          winner_initials: d.winner_name ? initialsOf(d.winner_name) : null,
        })),
      };
    },

    fetch(opts, by) {
      return fetchResults(deps, opts, by);
    },

    async drawResult(drawId) {
      const d = await drawOrThrow(db, drawId);
      if (d.status !== 'drawn' || d.contest_number === null)
        throw errors.notFound('result_not_available', 'O resultado deste sorteio ainda não saiu.');
      const r = await findResult(db, d.contest_number);
      if (!r) throw errors.notFound('result_not_available', 'O resultado deste sorteio ainda não saiu.');
      const winner = d.winner_user_id ? await db('users').where({ id: d.winner_user_id }).first('name') : undefined;
      return {
        draw_id: d.id,
        title: d.title,
        total_numbers: d.total_numbers,
        contest_number: r.contest_number,
        drawn_at: iso(r.held_at),
        realized_at: iso(d.realized_at),
        numbers: r.numbers,
        walk: walkOf(r.numbers, d.winner_number, d.total_numbers, await q.voidedNumbers(db, d.id)),
        winning_number: d.winner_number,
        winner_initials: winner ? initialsOf(winner.name) : null,
        no_winner: d.no_winner,
      };
    },

    async preview(drawId, input) {
      const cmd = RecordCommand.parse(input);
      const d = await drawOrThrow(db, drawId);
      return previewFor(d, cmd, cmd.drawn_at ?? null);
    },

    async recordForDraw(adminId, drawId, input) {
      const cmd = RecordCommand.parse(input);
      const d = await drawOrThrow(db, drawId);
      if (d.status === 'open') throw errors.conflict('draw_not_closed', 'Feche o sorteio antes de registrar o resultado.');
      if (d.status === 'drawn')
        throw errors.conflict('draw_drawn', 'Este sorteio já foi realizado. Para corrigir um resultado, use: cotaverde results correct.');
      const stored = await findResult(db, cmd.contest_number);
      if (stored && !sameNumbers(stored.numbers, cmd.numbers))
        throw errors.conflict('result_conflict', correctionHint(cmd.contest_number), { stored_numbers: stored.numbers });
      // Typed numbers come with the contest's real date (a fetched result brings the official one).
      if (!stored && !cmd.drawn_at) throw errors.validation('drawn_at_required', 'Informe a data e a hora do concurso.');
      const heldAt = stored?.held_at ?? cmd.drawn_at!;
      if (!stored && !cmd.force) await assertContestOrder(db, cmd.contest_number, heldAt);
      const from = await windowStart(db, cmd.contest_number, heldAt);
      if (!d.closed_at || d.closed_at >= heldAt || d.closed_at < from)
        throw errors.conflict(
          'result_not_for_draw',
          `O concurso ${cmd.contest_number} não decide este sorteio: vale o primeiro concurso realizado depois do fechamento do sorteio.`,
        );
      const outcome = await recordParsed(deps, { ...cmd, drawn_at: heldAt }, { actorUserId: adminId, actor: 'admin', source: 'admin' });
      return { result: await service.drawResult(drawId), outcome };
    },

    async fetchPreview(drawId, input) {
      const cmd = FetchCommand.parse(input ?? {});
      const d = await drawOrThrow(db, drawId);
      if (d.status === 'open') throw errors.conflict('draw_not_closed', 'Feche o sorteio antes de registrar o resultado.');
      const f = cmd.contest_number !== undefined ? await deps.lottery.fetchContest(cmd.contest_number) : await deps.lottery.fetchLatest();
      if (f.status === 'no_draw_order') {
        const seen = await noDrawOrder(deps, f);
        // Already typed in: the stored numbers are in draw order.
        const stored = seen.stored ? await findResult(db, f.contest_number) : undefined;
        if (stored) return previewFor(d, { contest_number: stored.contest_number, numbers: stored.numbers }, stored.held_at);
        throw errors.conflict(
          'result_without_draw_order',
          `${f.message} Digite os 20 números na ordem do sorteio para registrar o resultado.`,
          {
            contest_number: f.contest_number,
            drawn_at: iso(f.drawn_at),
          },
        );
      }
      if (f.status !== 'drawn') throw errors.conflict('result_not_drawn', f.message);
      return previewFor(d, f, f.drawn_at);
    },
  };
  return service;
}
