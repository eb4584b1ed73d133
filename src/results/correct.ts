import { afterCommit, type Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { iso } from '../shared/iso';
import type { DecidedDraw, RecordOutcome } from '../shared/api/results';
import * as q from '../draws/queries';
import { refundRetractionMail, retractionMail } from './mails';
import { GAME, findResult, type Actor, type Redecision, type RefundedSales, type ResultRow, type ResultsDeps } from './model';
import { afterDecisions, applyWinnerRule, decidePending, mailWinner } from './decide';
import { outcomeOf } from './record';
import { CorrectCommand } from './schemas';

/**
 * Re-decides a decided draw (its row locked by the caller) from its stored contest with the one
 * winner rule over today's counting sales (applyWinnerRule, as deciding it did): the path of an
 * operator's correction (RULES W5, W6) and of a refund that reached the winner (RULES W8). A
 * changed winner resets the prize's redeemed flag, retracts the previous winner's win by mail and
 * announces the new one, each audited. A correction is always audited; a refund that changes
 * nothing writes nothing.
 */
async function redecideLocked(
  deps: ResultsDeps,
  trx: Trx,
  d: q.DrawRow,
  r: { contest_number: number; held_at: Date; numbers: number[] },
  by: Actor,
  why: Redecision,
): Promise<{ decided: DecidedDraw; changed: boolean; mails: number[] }> {
  const { decision, decided, inputs } = await applyWinnerRule(trx, d, r);
  const changed =
    d.winner_user_id !== decision.winner_user_id ||
    d.winner_number !== decision.winning_number ||
    d.no_winner !== (decision.winning_number === null);
  const mails: number[] = [];
  if (why.kind === 'refund' && !changed) return { decided, changed, mails };
  const reason = why.reason;
  const cause = why.kind === 'refund' ? { payment_id: why.paymentId, payment_status: why.paymentStatus } : undefined;
  await trx('draws')
    .where({ id: d.id })
    .update({
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
      inputs,
      walk: decision.walk,
      before: { winner_user_id: d.winner_user_id, winner_number: d.winner_number, no_winner: d.no_winner },
      after: {
        winner_user_id: decision.winner_user_id,
        winner_number: decision.winning_number,
        no_winner: decision.winning_number === null,
      },
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
      ? await deps.mailer.enqueue(
          trx,
          why.kind === 'refund'
            ? refundRetractionMail(deps.publicUrl, d, prev, d.winner_number)
            : retractionMail(deps.publicUrl, d, prev, r.contest_number, d.winner_number),
        )
      : null;
    if (outboxId !== null) mails.push(outboxId);
    await audit(trx, {
      actorUserId: by.actorUserId,
      actor: by.actor,
      action: 'winner.retracted',
      entity: 'draw',
      entityId: d.id,
      data: {
        reason,
        ...(cause ? { cause } : {}),
        user_id: d.winner_user_id,
        winner_number: d.winner_number,
        redeemed_before: d.redeemed,
        mailed: outboxId !== null,
      },
    });
  }
  if (changed && decision.winner_user_id !== null && decision.winning_number !== null) {
    const outboxId = await mailWinner(deps, trx, d, r.contest_number, { userId: decision.winner_user_id, n: decision.winning_number });
    if (outboxId !== null) mails.push(outboxId);
    await audit(trx, {
      actorUserId: by.actorUserId,
      actor: by.actor,
      action: 'winner.announced',
      entity: 'draw',
      entityId: d.id,
      data: {
        reason,
        ...(cause ? { cause } : {}),
        user_id: decision.winner_user_id,
        winner_number: decision.winning_number,
        mailed: outboxId !== null,
      },
    });
  }
  return { decided, changed, mails };
}

/** The operator's explicit correction of a stored result (RULES W5, W6): recomputes the draws it decided, audited with the reason. */
export async function correctResult(deps: ResultsDeps, input: unknown, by: Actor): Promise<RecordOutcome & { redecided: DecidedDraw[] }> {
  const { db, logger } = deps;
  const cmd = CorrectCommand.parse(input);
  const mails: Array<number | null> = [];
  const redecided: DecidedDraw[] = [];
  const drawIds: number[] = [];
  const row = await db.transaction(async (trx) => {
    const before: ResultRow | undefined = await trx('lottery_results')
      .where({ game: GAME, contest_number: cmd.contest_number })
      .forUpdate()
      .first();
    if (!before)
      throw errors.notFound(
        'result_not_found',
        `O concurso ${cmd.contest_number} não foi registrado. Use: cotaverde results record --contest ${cmd.contest_number} --numbers "…".`,
      );
    const heldAt = cmd.drawn_at ?? before.held_at;
    const [after]: ResultRow[] = await trx('lottery_results')
      .where({ id: before.id })
      .update({ numbers: cmd.numbers, held_at: heldAt })
      .returning('*');
    await audit(trx, {
      actorUserId: by.actorUserId,
      actor: by.actor,
      action: 'lottery_result.corrected',
      entity: 'lottery_result',
      entityId: cmd.contest_number,
      data: {
        reason: cmd.reason,
        before: { numbers: before.numbers, drawn_at: iso(before.held_at) },
        after: { numbers: after.numbers, drawn_at: iso(after.held_at) },
      },
    });
    const decidedIds: Array<{ id: number }> = await trx('draws')
      .where({ contest_number: cmd.contest_number, status: 'drawn' })
      .orderBy('id')
      .select('id');
    for (const { id } of decidedIds) {
      const d = (await q.lockDraw(trx, Number(id), 'update'))!;
      const x = await redecideLocked(deps, trx, d, after, by, { kind: 'correction', reason: cmd.reason });
      mails.push(...x.mails);
      drawIds.push(d.id);
      redecided.push(x.decided);
    }
    deps.readCache.invalidateAllAfterCommit(trx);
    return after;
  });
  await afterDecisions(deps, drawIds, mails);
  logger.info({ contest: cmd.contest_number, redecided: drawIds }, 'lottery result corrected');
  // A corrected date may now decide closed draws too.
  const decided = await decidePending(deps, row, by);
  return { ...outcomeOf(row, false, decided), redecided };
}

/**
 * RULES W8: in the caller's transaction (a refund or chargeback, its draw rows already locked),
 * re-decides each drawn draw among `drawIds` from its stored contest, as a correction does; a
 * draw whose winner still counts is left untouched. Answers the draws whose winner changed.
 */
export async function redecideAfterRefund(deps: ResultsDeps, trx: Trx, e: RefundedSales): Promise<DecidedDraw[]> {
  const { logger } = deps;
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
    const x = await redecideLocked(deps, trx, d, r, e.by, {
      kind: 'refund',
      reason,
      paymentId: e.paymentId,
      paymentStatus: e.paymentStatus,
    });
    if (!x.changed) continue;
    changed.push(x.decided);
    mails.push(...x.mails);
  }
  if (!changed.length) return changed;
  deps.readCache.invalidateAllAfterCommit(trx);
  afterCommit(trx, async () => {
    await afterDecisions(
      deps,
      changed.map((c) => c.draw_id),
      mails,
    );
    for (const c of changed)
      logger.info(
        { drawId: c.draw_id, paymentId: e.paymentId, winningNumber: c.winning_number, winnerUserId: c.winner_user_id },
        'draw re-decided after a refund reached its winner',
      );
  });
  return changed;
}
