import { z } from 'zod';
import { afterCommit as afterCommitOf, type Db, type Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import type { Logger } from '../platform/logger';
import type { Mailer } from '../platform/mail';
import type { ReadCache } from '../platform/read-cache';
import { initialsOf } from '../shared/initials';
import { iso } from '../shared/iso';
import type { ContestResult, DecidedDraw, DrawResult, RecordOutcome, ResultPreview, WalkStep } from '../shared/api/results';
import * as q from '../draws/queries';
import { drawStatusWord } from '../draws/serializers';
import type { DrawsService } from '../draws/service';
import type { FetchOutcome, LotteryClient } from './lottery-client';
import { decideWinner, lotomaniaNumbersProblem } from './winner-rule';
import { noteDrawOrderMissing, resolveResultAlerts } from './alerts';
import { lotteryResultsWithoutDrawOrder } from '../platform/metrics';

/**
 * Lotomania results and the draws they decide (RULES W1-W5). One service for the CLI,
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
 */

export const GAME = 'lotomania';
export type Actor = { actorUserId: number | null; actor: 'cli' | 'admin' | 'system' };
type Source = 'cli' | 'admin' | 'service';

const ContestNumber = z
  .unknown()
  .superRefine((v, ctx) => {
    if (v === undefined || v === null || v === '') ctx.addIssue({ code: 'custom', message: 'Informe o número do concurso.' });
  })
  .pipe(
    z.coerce
      .number({ error: 'O número do concurso deve ser um número.' })
      .int('O número do concurso deve ser inteiro.')
      .min(1, 'O número do concurso deve ser positivo.')
      .max(1_000_000, 'O número do concurso é alto demais.'),
  );

/** The 20 numbers in draw order: an array (numbers or "07" texts) or one text "07 64 02 …" (spaces, commas, hyphens). */
export const DrawnNumbers = z.unknown().transform((v, ctx): number[] => {
  const parts = typeof v === 'string' ? v.split(/[\s,;-]+/).filter(Boolean) : Array.isArray(v) ? v : null;
  if (!parts) {
    ctx.addIssue({ code: 'custom', message: 'Informe os 20 números sorteados, na ordem do sorteio.' });
    return z.NEVER;
  }
  const nums = parts.map((p) => (typeof p === 'number' ? p : typeof p === 'string' && /^\d{1,2}$/.test(p.trim()) ? Number(p) : NaN));
  if (nums.some((n) => !Number.isInteger(n))) {
    ctx.addIssue({ code: 'custom', message: 'Cada número deve estar entre 00 e 99.' });
    return z.NEVER;
  }
  const problem = lotomaniaNumbersProblem(nums);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  return nums;
});

const DrawnAt = z.coerce.date({ error: 'Data do concurso inválida (use ISO 8601, ex.: 2026-11-23T23:00:00Z).' });

export const RecordCommand = z.object(
  {
    contest_number: ContestNumber,
    numbers: DrawnNumbers,
    drawn_at: DrawnAt.optional(),
    /** Records a contest whose number and date disagree with the stored contests' order. */
    force: z.boolean({ error: 'force deve ser verdadeiro ou falso.' }).optional(),
  },
  { error: 'Envie um objeto JSON.' },
);
/** Numbers typed in (CLI `results record`): the contest's real date is required (DESIGN §8). */
export const TypedRecordCommand = RecordCommand.extend({
  drawn_at: z.coerce.date({ error: 'Informe a data do concurso (--drawn-at, ISO 8601, ex.: 2026-11-23T23:00:00Z).' }),
});
export const CorrectCommand = RecordCommand.extend({
  reason: z.string({ error: 'Informe o motivo da correção.' }).trim().min(3, 'Informe o motivo da correção.').max(500, 'O motivo pode ter no máximo 500 caracteres.'),
});
export const FetchCommand = z.object({ contest_number: ContestNumber.optional() }, { error: 'Envie um objeto JSON.' });

interface ResultRow {
  id: number;
  game: string;
  contest_number: number;
  held_at: Date;
  numbers: number[];
  source: Source;
  recorded_by: number | null;
  created_at: Date;
}

const sameNumbers = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((n, i) => n === b[i]);
const pad = (n: number) => String(n).padStart(2, '0');
const correctionHint = (c: number) =>
  `O concurso ${c} já foi registrado com outros números. Para corrigir, use: cotaverde results correct --contest ${c} --numbers "<20 números>" --reason "<motivo>".`;

/** Brasília is UTC−3 all year (no daylight saving time since 2019). */
const BRT_OFFSET_MS = 3 * 3600_000;

/** The last regular Lotomania slot (Mon/Wed/Fri 20:00 Brasília) strictly before the day of `d` in Brasília. */
export function previousScheduledContest(d: Date): Date {
  const local = new Date(d.getTime() - BRT_OFFSET_MS);
  const day = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), 20));
  do day.setUTCDate(day.getUTCDate() - 1);
  while (![1, 3, 5].includes(day.getUTCDay()));
  return new Date(day.getTime() + BRT_OFFSET_MS);
}

/** The walk of a stored decision: the numbers drawn after the winning one (last first), or all twenty. */
export function walkOf(numbers: readonly number[], winningNumber: number | null, totalNumbers: number, voided: readonly number[] = []): WalkStep[] {
  const after = winningNumber === null ? [...numbers] : numbers.slice(numbers.indexOf(winningNumber) + 1);
  return after.reverse().map((n) => ({ n, reason: n >= totalNumbers ? 'out_of_range' : voided.includes(n) ? 'voided' : 'not_sold' }));
}

/** Why a decided draw is decided again: an operator's correction, or a refund that voided the winner's sale (RULES W8). */
export type Redecision = { kind: 'correction'; reason: string } | { kind: 'refund'; reason: string; paymentId: number; paymentStatus: 'refunded' | 'charged_back' };

/** A refund or chargeback voided sales of decided draws (the hook draws/vouchers fires in the refund's transaction). */
export interface RefundedSales {
  drawIds: number[];
  paymentId: number;
  paymentStatus: 'refunded' | 'charged_back';
  by: Actor;
}

export interface FetchReport {
  /** Contests asked for, with what the service said. */
  fetched: Array<{ contest_number: number | null; status: 'drawn' | 'not_drawn' | 'stored' | 'no_draw_order'; message?: string }>;
  decided: DecidedDraw[];
  /** Closed draws still waiting for their contest. */
  pending: number;
}

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

export function createResultsService(deps: {
  db: Db;
  logger: Logger;
  mailer: Mailer;
  readCache: ReadCache;
  draws: DrawsService;
  lottery: LotteryClient;
  publicUrl: string;
}): ResultsService {
  const { db, logger } = deps;

  const findResult = (conn: Db | Trx, contest: number): Promise<ResultRow | undefined> => conn('lottery_results').where({ game: GAME, contest_number: contest }).first();

  /** Draws are decided by contest `c` held at `heldAt` when they closed before it and not before the previous contest. */
  async function windowStart(conn: Db | Trx, contest: number, heldAt: Date): Promise<Date> {
    const prev = await conn('lottery_results').where({ game: GAME }).where('contest_number', '<', contest).orderBy('contest_number', 'desc').first('contest_number', 'held_at');
    if (prev && prev.contest_number === contest - 1 && prev.held_at < heldAt) return prev.held_at;
    return previousScheduledContest(heldAt);
  }

  async function eligibleDrawIds(conn: Db | Trx, contest: number, heldAt: Date): Promise<number[]> {
    const from = await windowStart(conn, contest, heldAt);
    const rows: Array<{ id: number }> = await conn('draws')
      .where({ status: 'closed' })
      .where('closed_at', '<', heldAt)
      .where('closed_at', '>=', from)
      .orderBy('id')
      .select('id');
    return rows.map((r) => Number(r.id));
  }

  function winnerMail(d: q.DrawRow, user: { name: string; email: string }, contest: number, n: number) {
    const first = user.name.split(/\s+/)[0] || user.name;
    return {
      to: user.email,
      template: 'draw_won',
      subject: `Você foi contemplado no sorteio "${d.title}"!`,
      text: [
        `Olá, ${first}!`,
        '',
        `O seu número ${pad(n)} foi o contemplado do sorteio "${d.title}", decidido pelo concurso ${contest} da Lotomania.`,
        '',
        `Confira o resultado: ${deps.publicUrl}/resultado/${d.id}`,
        `Acompanhe o seu prêmio em: ${deps.publicUrl}/conta`,
        '',
        'Equipe Cota Verde',
      ].join('\n'),
    };
  }

  function retractionMail(d: q.DrawRow, user: { name: string; email: string }, contest: number, n: number | null) {
    const first = user.name.split(/\s+/)[0] || user.name;
    return {
      to: user.email,
      template: 'draw_win_retracted',
      subject: `Correção do resultado do sorteio "${d.title}"`,
      text: [
        `Olá, ${first}.`,
        '',
        `O resultado do concurso ${contest} da Lotomania, que decidiu o sorteio "${d.title}", foi corrigido.` +
          (n !== null ? ` Com os números corretos, o seu número ${pad(n)} não é o contemplado: o aviso anterior de prêmio fica sem efeito.` : ' O aviso anterior de prêmio fica sem efeito.'),
        'Pedimos desculpas pelo engano.',
        '',
        `Confira o resultado: ${deps.publicUrl}/resultado/${d.id}`,
        '',
        'Equipe Cota Verde',
      ].join('\n'),
    };
  }

  function refundRetractionMail(d: q.DrawRow, user: { name: string; email: string }, n: number | null) {
    const first = user.name.split(/\s+/)[0] || user.name;
    return {
      to: user.email,
      template: 'draw_win_retracted',
      subject: `Correção do resultado do sorteio "${d.title}"`,
      text: [
        `Olá, ${first}.`,
        '',
        `O pagamento que comprou o seu número${n !== null ? ` ${pad(n)}` : ''} no sorteio "${d.title}" foi estornado (ou contestado), e um número cujo pagamento foi devolvido não concorre.` +
          ' O aviso anterior de prêmio fica sem efeito, e o sorteio foi apurado de novo com as mesmas dezenas do concurso.',
        'Se você não reconhece este estorno, responda a este e-mail.',
        '',
        `Confira o resultado: ${deps.publicUrl}/resultado/${d.id}`,
        '',
        'Equipe Cota Verde',
      ].join('\n'),
    };
  }

  /**
   * Decides one draw in `trx` (its row locked here): null when it is no longer `closed`
   * (already decided by a parallel run, or reopened). Returns the outbox id of the winner's mail.
   */
  async function decideLocked(trx: Trx, drawId: number, r: { contest_number: number; held_at: Date; numbers: number[] }, by: Actor) {
    const d = await q.lockDraw(trx, drawId, 'update');
    if (!d || d.status !== 'closed') return null;
    const [sold, voided] = [await q.soldNumbersThatCount(trx, drawId), await q.voidedNumbers(trx, drawId)];
    const decision = decideWinner({ numbers: r.numbers, totalNumbers: d.total_numbers, sold, voided });
    const [after] = await trx('draws')
      .where({ id: drawId })
      .update({
        status: 'drawn',
        realized_at: trx.fn.now(),
        contest_number: r.contest_number,
        winner_user_id: decision.winner_user_id,
        winner_number: decision.winning_number,
        no_winner: decision.winning_number === null,
        updated_at: trx.fn.now(),
      })
      .returning('*');
    await audit(trx, {
      actorUserId: by.actorUserId,
      actor: by.actor,
      action: 'draw.decided',
      entity: 'draw',
      entityId: drawId,
      data: {
        // The inputs: anyone can recompute the winner with decideWinner from these.
        inputs: { game: GAME, contest_number: r.contest_number, drawn_at: iso(r.held_at), numbers: r.numbers, total_numbers: d.total_numbers, closed_at: iso(d.closed_at), sold },
        walk: decision.walk,
        winning_number: decision.winning_number,
        winner_user_id: decision.winner_user_id,
        before: { status: d.status },
        after: { status: after.status, realized_at: iso(after.realized_at), contest_number: after.contest_number, no_winner: after.no_winner },
      },
    });
    let outboxId: number | null = null;
    if (decision.winner_user_id !== null && decision.winning_number !== null) {
      const user = await trx('users').where({ id: decision.winner_user_id }).first('name', 'email');
      if (user) outboxId = await deps.mailer.enqueue(trx, winnerMail(d, user, r.contest_number, decision.winning_number));
    }
    deps.readCache.invalidateAllAfterCommit(trx);
    const out: DecidedDraw = {
      draw_id: drawId,
      title: d.title,
      contest_number: r.contest_number,
      winning_number: decision.winning_number,
      winner_user_id: decision.winner_user_id,
      no_winner: decision.winning_number === null,
      walk: decision.walk,
    };
    return { decided: out, outboxId };
  }

  /**
   * Re-decides a decided draw (its row locked by the caller) from its stored contest with the one
   * winner rule over today's counting sales: the path of an operator's correction (RULES W5, W6)
   * and of a refund that reached the winner (RULES W8). A changed winner resets the prize's
   * redeemed flag, retracts the previous winner's win by mail and announces the new one, each
   * audited. A correction is always audited; a refund that changes nothing writes nothing.
   */
  async function redecideLocked(
    trx: Trx,
    d: q.DrawRow,
    r: { contest_number: number; held_at: Date; numbers: number[] },
    by: Actor,
    why: Redecision,
  ): Promise<{ decided: DecidedDraw; changed: boolean; mails: number[] }> {
    const [sold, voided] = [await q.soldNumbersThatCount(trx, d.id), await q.voidedNumbers(trx, d.id)];
    const decision = decideWinner({ numbers: r.numbers, totalNumbers: d.total_numbers, sold, voided });
    const changed = d.winner_user_id !== decision.winner_user_id || d.winner_number !== decision.winning_number || d.no_winner !== (decision.winning_number === null);
    const decided: DecidedDraw = {
      draw_id: d.id,
      title: d.title,
      contest_number: r.contest_number,
      winning_number: decision.winning_number,
      winner_user_id: decision.winner_user_id,
      no_winner: decision.winning_number === null,
      walk: decision.walk,
    };
    const mails: number[] = [];
    if (why.kind === 'refund' && !changed) return { decided, changed, mails };
    const reason = why.reason;
    const cause = why.kind === 'refund' ? { payment_id: why.paymentId, payment_status: why.paymentStatus } : undefined;
    await trx('draws').where({ id: d.id }).update({
      winner_user_id: decision.winner_user_id,
      winner_number: decision.winning_number,
      no_winner: decision.winning_number === null,
      realized_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    });
    await audit(trx, {
      actorUserId: by.actorUserId,
      actor: by.actor,
      action: why.kind === 'refund' ? 'draw.redecided_after_refund' : 'draw.result_corrected',
      entity: 'draw',
      entityId: d.id,
      data: {
        reason,
        ...(cause ? { cause } : {}),
        inputs: { game: GAME, contest_number: r.contest_number, drawn_at: iso(r.held_at), numbers: r.numbers, total_numbers: d.total_numbers, closed_at: iso(d.closed_at), sold },
        walk: decision.walk,
        before: { winner_user_id: d.winner_user_id, winner_number: d.winner_number, no_winner: d.no_winner },
        after: { winner_user_id: decision.winner_user_id, winner_number: decision.winning_number, no_winner: decision.winning_number === null },
      },
    });
    // RULES W6 (a correction corrects everything): another winner starts NÃO RESGATADO (the
    // prize's name and link stay with the draw); the previous winner is told the win is
    // retracted, the new one gets the announcement; both are audited.
    if (d.winner_user_id !== decision.winner_user_id && d.redeemed) {
      await trx('draws').where({ id: d.id }).update({ redeemed: false });
    }
    if (changed && d.winner_user_id !== null && d.winner_user_id !== decision.winner_user_id) {
      const prev = await trx('users').where({ id: d.winner_user_id }).first('name', 'email');
      const outboxId = prev
        ? await deps.mailer.enqueue(trx, why.kind === 'refund' ? refundRetractionMail(d, prev, d.winner_number) : retractionMail(d, prev, r.contest_number, d.winner_number))
        : null;
      if (outboxId !== null) mails.push(outboxId);
      await audit(trx, {
        actorUserId: by.actorUserId,
        actor: by.actor,
        action: 'winner.retracted',
        entity: 'draw',
        entityId: d.id,
        data: { reason, ...(cause ? { cause } : {}), user_id: d.winner_user_id, winner_number: d.winner_number, redeemed_before: d.redeemed, mailed: outboxId !== null },
      });
    }
    if (changed && decision.winner_user_id !== null && decision.winning_number !== null) {
      const user = await trx('users').where({ id: decision.winner_user_id }).first('name', 'email');
      const outboxId = user ? await deps.mailer.enqueue(trx, winnerMail(d, user, r.contest_number, decision.winning_number)) : null;
      if (outboxId !== null) mails.push(outboxId);
      await audit(trx, {
        actorUserId: by.actorUserId,
        actor: by.actor,
        action: 'winner.announced',
        entity: 'draw',
        entityId: d.id,
        data: { reason, ...(cause ? { cause } : {}), user_id: decision.winner_user_id, winner_number: decision.winning_number, mailed: outboxId !== null },
      });
    }
    return { decided, changed, mails };
  }

  async function afterCommit(drawIds: number[], outboxIds: Array<number | null>) {
    for (const id of drawIds) deps.draws.invalidateBoard(id);
    for (const o of outboxIds) {
      if (o !== null) await deps.mailer.dispatch(o).catch((err) => logger.warn({ outboxId: o, err: (err as Error).message }, 'winner mail: dispatch failed; the sweep sends it'));
    }
  }

  /** Decides every closed draw this stored result decides, each in its own transaction. */
  async function decidePending(r: ResultRow, by: Actor): Promise<DecidedDraw[]> {
    const ids = await eligibleDrawIds(db, r.contest_number, r.held_at);
    const out: DecidedDraw[] = [];
    for (const id of ids) {
      const x = await db.transaction((trx) => decideLocked(trx, id, r, by));
      if (!x) continue;
      await afterCommit([id], [x.outboxId]);
      logger.info({ drawId: id, contest: r.contest_number, winningNumber: x.decided.winning_number, winnerUserId: x.decided.winner_user_id }, 'draw decided');
      out.push(x.decided);
    }
    return out;
  }

  /**
   * Contests are numbered in date order (DESIGN §8): a typed contest whose number is lower than a
   * stored contest's while its date is later (or higher with an earlier date) is a typo of the
   * number or of the date: 409 with both, unless the operator insists (force).
   */
  async function assertContestOrder(conn: Db | Trx, contest: number, heldAt: Date) {
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

  /** Stores the result once; the stored row (same numbers) or a 409 (other numbers). */
  async function store(cmd: { contest_number: number; numbers: number[]; drawn_at?: Date; force?: boolean }, by: Actor & { source: Source }): Promise<{ row: ResultRow; created: boolean }> {
    const heldAt = cmd.drawn_at ?? new Date();
    if (heldAt.getTime() > Date.now() + 5 * 60_000) throw errors.validation('drawn_at_in_future', 'A data do concurso não pode estar no futuro.');
    return db.transaction(async (trx) => {
      // Typed results only: the results service's own numbers and dates are the reference.
      if (by.source !== 'service' && !cmd.force && !(await findResult(trx, cmd.contest_number))) await assertContestOrder(trx, cmd.contest_number, heldAt);
      const inserted: ResultRow[] = await trx('lottery_results')
        .insert({ game: GAME, contest_number: cmd.contest_number, held_at: heldAt, numbers: cmd.numbers, source: by.source, recorded_by: by.actorUserId })
        .onConflict(['game', 'contest_number'])
        .ignore()
        .returning('*');
      if (inserted.length) {
        await audit(trx, {
          actorUserId: by.actorUserId,
          actor: by.actor,
          action: 'lottery_result.recorded',
          entity: 'lottery_result',
          entityId: cmd.contest_number,
          data: { before: null, after: { contest_number: cmd.contest_number, drawn_at: iso(heldAt), numbers: cmd.numbers, source: by.source } },
        });
        // RULES W9: the contest is stored now; an alert about its missing draw order is over.
        await resolveResultAlerts(trx, cmd.contest_number);
        return { row: inserted[0], created: true };
      }
      const existing = (await findResult(trx, cmd.contest_number))!;
      if (!sameNumbers(existing.numbers, cmd.numbers)) throw errors.conflict('result_conflict', correctionHint(cmd.contest_number), { stored_numbers: existing.numbers });
      return { row: existing, created: false };
    });
  }

  const outcomeOf = (row: ResultRow, created: boolean, decided: DecidedDraw[]): RecordOutcome => ({
    contest_number: row.contest_number,
    drawn_at: iso(row.held_at),
    numbers: row.numbers,
    created,
    decided,
  });

  async function recordParsed(cmd: { contest_number: number; numbers: number[]; drawn_at?: Date; force?: boolean }, by: Actor & { source: Source }) {
    const { row, created } = await store(cmd, by);
    const decided = await decidePending(row, by);
    return outcomeOf(row, created, decided);
  }

  async function drawOrThrow(conn: Db | Trx, id: number) {
    const d = await q.findDraw(conn, id);
    if (!d) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
    return d;
  }

  async function previewFor(d: q.DrawRow, cmd: { contest_number: number; numbers: number[] }, drawnAt: Date | null): Promise<ResultPreview> {
    if (d.status === 'open') throw errors.conflict('draw_not_closed', 'Feche o sorteio antes de registrar o resultado.');
    const [sold, stored, voided] = await Promise.all([q.soldNumbersThatCount(db, d.id), findResult(db, cmd.contest_number), q.voidedNumbers(db, d.id)]);
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

  /** Asks the service for a contest, using the stored result when there is one. */
  async function resultOf(contest: number): Promise<{ stored: ResultRow | undefined; fetched: FetchOutcome | null }> {
    const stored = await findResult(db, contest);
    if (stored) return { stored, fetched: null };
    return { stored: undefined, fetched: await deps.lottery.fetchContest(contest) };
  }

  /**
   * RULES W9: the service published a contest without its draw order. Unless that contest is
   * already stored (typed in), the sighting counts on the metric and the first one per contest is
   * audited and logged as an error; the admin's draws answers show it on the draws it holds up.
   */
  async function noDrawOrder(f: FetchOutcome & { status: 'no_draw_order' }, report?: FetchReport): Promise<{ stored: boolean }> {
    const seen = await noteDrawOrderMissing(db, f);
    if (seen.stored) {
      report?.fetched.push({ contest_number: f.contest_number, status: 'stored' });
      return seen;
    }
    lotteryResultsWithoutDrawOrder.inc();
    if (seen.first) logger.error({ contest: f.contest_number, drawnAt: iso(f.drawn_at) }, 'results service published a contest without its draw order: closed draws wait for an operator to type it');
    else logger.warn({ contest: f.contest_number }, 'results service still without the draw order of a contest');
    report?.fetched.push({
      contest_number: f.contest_number,
      status: 'no_draw_order',
      message: `${f.message} Registre o resultado digitando os 20 números na ordem do sorteio: cotaverde results record --contest ${f.contest_number} --numbers "…" --drawn-at <data e hora>.`,
    });
    return seen;
  }

  const system: Actor = { actorUserId: null, actor: 'system' };

  const service: ResultsService = {
    record(input, by) {
      return recordParsed(TypedRecordCommand.parse(input), by);
    },

    async correct(input, by) {
      const cmd = CorrectCommand.parse(input);
      const mails: Array<number | null> = [];
      const redecided: DecidedDraw[] = [];
      const drawIds: number[] = [];
      const row = await db.transaction(async (trx) => {
        const before: ResultRow | undefined = await trx('lottery_results').where({ game: GAME, contest_number: cmd.contest_number }).forUpdate().first();
        if (!before) throw errors.notFound('result_not_found', `O concurso ${cmd.contest_number} não foi registrado. Use: cotaverde results record --contest ${cmd.contest_number} --numbers "…".`);
        const heldAt = cmd.drawn_at ?? before.held_at;
        const [after]: ResultRow[] = await trx('lottery_results').where({ id: before.id }).update({ numbers: cmd.numbers, held_at: heldAt }).returning('*');
        await audit(trx, {
          actorUserId: by.actorUserId,
          actor: by.actor,
          action: 'lottery_result.corrected',
          entity: 'lottery_result',
          entityId: cmd.contest_number,
          data: { reason: cmd.reason, before: { numbers: before.numbers, drawn_at: iso(before.held_at) }, after: { numbers: after.numbers, drawn_at: iso(after.held_at) } },
        });
        const decidedIds: Array<{ id: number }> = await trx('draws').where({ contest_number: cmd.contest_number, status: 'drawn' }).orderBy('id').select('id');
        for (const { id } of decidedIds) {
          const d = (await q.lockDraw(trx, Number(id), 'update'))!;
          const x = await redecideLocked(trx, d, after, by, { kind: 'correction', reason: cmd.reason });
          mails.push(...x.mails);
          drawIds.push(d.id);
          redecided.push(x.decided);
        }
        deps.readCache.invalidateAllAfterCommit(trx);
        return after;
      });
      await afterCommit(drawIds, mails);
      logger.info({ contest: cmd.contest_number, redecided: drawIds }, 'lottery result corrected');
      // A corrected date may now decide closed draws too.
      const decided = await decidePending(row, by);
      return { ...outcomeOf(row, false, decided), redecided };
    },

    async redecideAfterRefund(trx, e) {
      const changed: DecidedDraw[] = [];
      const mails: number[] = [];
      const reason = `pagamento #${e.paymentId} ${e.paymentStatus === 'refunded' ? 'estornado' : 'contestado (chargeback)'}: a venda do número vencedor foi anulada`;
      for (const id of [...new Set(e.drawIds)].sort((a, b) => a - b)) {
        // Already locked by the refund (RULES N4): this only reads the row as it is now.
        const d = await q.lockDraw(trx, id, 'update');
        if (!d || d.status !== 'drawn' || d.contest_number === null) continue;
        const r = await findResult(trx, d.contest_number);
        if (!r) {
          logger.error({ drawId: id, contest: d.contest_number }, 'refund reached a decided draw without its stored result: not re-decided');
          continue;
        }
        const x = await redecideLocked(trx, d, r, e.by, { kind: 'refund', reason, paymentId: e.paymentId, paymentStatus: e.paymentStatus });
        if (!x.changed) continue;
        changed.push(x.decided);
        mails.push(...x.mails);
      }
      if (!changed.length) return changed;
      deps.readCache.invalidateAllAfterCommit(trx);
      afterCommitOf(trx, async () => {
        await afterCommit(
          changed.map((c) => c.draw_id),
          mails,
        );
        for (const c of changed)
          logger.info({ drawId: c.draw_id, paymentId: e.paymentId, winningNumber: c.winning_number, winnerUserId: c.winner_user_id }, 'draw re-decided after a refund reached its winner');
      });
      return changed;
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

    async fetch(opts = {}, by = system) {
      const report: FetchReport = { fetched: [], decided: [], pending: 0 };
      const recordFetched = async (f: FetchOutcome & { status: 'drawn' }) => {
        const out = await recordParsed({ contest_number: f.contest_number, numbers: f.numbers, drawn_at: f.drawn_at }, { ...by, source: 'service' });
        report.decided.push(...out.decided);
      };
      const pendingCount = async () => Number((await db('draws').where({ status: 'closed' }).count<{ c: string }[]>({ c: '*' }))[0].c);

      if (opts.contest !== undefined) {
        const c = ContestNumber.parse(opts.contest);
        const f = await deps.lottery.fetchContest(c);
        if (f.status === 'no_draw_order') await noDrawOrder(f, report);
        else report.fetched.push(f.status === 'drawn' ? { contest_number: c, status: 'drawn' } : { contest_number: c, status: 'not_drawn', message: f.message });
        if (f.status === 'drawn') await recordFetched(f);
        report.pending = await pendingCount();
        return report;
      }

      // The job: only when some closed draw waits for its contest.
      const earliest = await db('draws').where({ status: 'closed' }).whereNotNull('closed_at').min<{ m: Date | null }[]>({ m: 'closed_at' });
      const earliestClosed = earliest[0]?.m ? new Date(earliest[0].m) : null;
      if (!earliestClosed) return report;
      const latest = await deps.lottery.fetchLatest();
      if (latest.status === 'not_drawn') {
        report.fetched.push({ contest_number: latest.contest_number, status: 'not_drawn', message: latest.message });
        report.pending = await pendingCount();
        return report;
      }
      // Walk back from the latest contest until one held before the earliest closing (at most 30).
      // A contest published without its draw order is alerted and skipped (RULES W9): the older
      // ones still decide the draws they decide.
      const chain: Array<{ contest_number: number; numbers: number[]; drawn_at: Date }> = [];
      const take = async (f: FetchOutcome & { status: 'drawn' | 'no_draw_order' }) => {
        if (f.status === 'drawn') {
          report.fetched.push({ contest_number: f.contest_number, status: 'drawn' });
          chain.push(f);
        } else await noDrawOrder(f, report);
      };
      await take(latest);
      let cursor: { contest_number: number; drawn_at: Date } = latest;
      for (let steps = 0; steps < 30; steps++) {
        if (cursor.drawn_at <= earliestClosed || cursor.contest_number <= 1) break;
        const { stored, fetched } = await resultOf(cursor.contest_number - 1);
        if (stored) {
          report.fetched.push({ contest_number: stored.contest_number, status: 'stored' });
          chain.push({ contest_number: stored.contest_number, numbers: stored.numbers, drawn_at: stored.held_at });
          cursor = { contest_number: stored.contest_number, drawn_at: stored.held_at };
        } else if (fetched && fetched.status !== 'not_drawn') {
          await take(fetched);
          cursor = fetched;
        } else break;
      }
      // Oldest first: each contest's window then starts at the stored previous one.
      for (const r of chain.reverse()) {
        try {
          await recordFetched({ status: 'drawn', ...r });
        } catch (e) {
          // A stored result that differs from the service's is for an operator to correct; the others go on.
          if ((e as { code?: string }).code !== 'result_conflict') throw e;
          logger.error({ contest: r.contest_number, err: (e as Error).message }, 'results.fetch: the service disagrees with a stored result');
        }
      }
      report.pending = await pendingCount();
      return report;
    },

    async drawResult(drawId) {
      const d = await drawOrThrow(db, drawId);
      if (d.status !== 'drawn' || d.contest_number === null) throw errors.notFound('result_not_available', 'O resultado deste sorteio ainda não saiu.');
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
      if (d.status === 'drawn') throw errors.conflict('draw_drawn', 'Este sorteio já foi realizado. Para corrigir um resultado, use: cotaverde results correct.');
      const stored = await findResult(db, cmd.contest_number);
      if (stored && !sameNumbers(stored.numbers, cmd.numbers)) throw errors.conflict('result_conflict', correctionHint(cmd.contest_number), { stored_numbers: stored.numbers });
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
      const outcome = await recordParsed({ ...cmd, drawn_at: heldAt }, { actorUserId: adminId, actor: 'admin', source: 'admin' });
      return { result: await service.drawResult(drawId), outcome };
    },

    async fetchPreview(drawId, input) {
      const cmd = FetchCommand.parse(input ?? {});
      const d = await drawOrThrow(db, drawId);
      if (d.status === 'open') throw errors.conflict('draw_not_closed', 'Feche o sorteio antes de registrar o resultado.');
      const f = cmd.contest_number !== undefined ? await deps.lottery.fetchContest(cmd.contest_number) : await deps.lottery.fetchLatest();
      if (f.status === 'no_draw_order') {
        const seen = await noDrawOrder(f);
        // Already typed in: the stored numbers are in draw order.
        const stored = seen.stored ? await findResult(db, f.contest_number) : undefined;
        if (stored) return previewFor(d, { contest_number: stored.contest_number, numbers: stored.numbers }, stored.held_at);
        throw errors.conflict('result_without_draw_order', `${f.message} Digite os 20 números na ordem do sorteio para registrar o resultado.`, {
          contest_number: f.contest_number,
          drawn_at: iso(f.drawn_at),
        });
      }
      if (f.status !== 'drawn') throw errors.conflict('result_not_drawn', f.message);
      return previewFor(d, f, f.drawn_at);
    },
  };
  return service;
}
