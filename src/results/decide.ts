import type { Trx } from '../platform/db';
import { audit } from '../platform/audit';
import { iso } from '../shared/iso';
import type { DecidedDraw } from '../shared/api/results';
import * as q from '../draws/queries';
import { decideWinner } from './winner-rule';
import { winnerMail } from './mails';
import { readPrizeContact } from './prize';
import { claimFor, prizeOf } from '../shared/prize';
import { GAME, type Actor, type ContestNumbers, type ResultRow, type ResultsDeps } from './model';
import { eligibleDrawIds } from './contests';

/**
 * The one run of the winner rule (RULES W2, W3) over a draw's counting sales as they are now, in
 * the caller's transaction (the draw row locked): what deciding a draw and deciding it again
 * (correct.ts) share. `inputs` are the audit entry's: anyone can recompute the winner from them.
 */
export async function applyWinnerRule(trx: Trx, d: q.DrawRow, r: ContestNumbers) {
  const [sold, voided] = [await q.soldNumbersThatCount(trx, d.id), await q.voidedNumbers(trx, d.id)];
  const decision = decideWinner({ numbers: r.numbers, totalNumbers: d.total_numbers, sold, voided });
  const decided: DecidedDraw = {
    draw_id: d.id,
    title: d.title,
    contest_number: r.contest_number,
    winning_number: decision.winning_number,
    winner_user_id: decision.winner_user_id,
    no_winner: decision.winning_number === null,
    walk: decision.walk,
  };
  const inputs = {
    game: GAME,
    contest_number: r.contest_number,
    drawn_at: iso(r.held_at),
    numbers: r.numbers,
    total_numbers: d.total_numbers,
    closed_at: iso(d.closed_at),
    sold,
  };
  return { decision, decided, inputs };
}

/** Mails the winner of a decision through the outbox (RULES W4): its outbox id, null without a winner or user. */
export async function mailWinner(
  deps: Pick<ResultsDeps, 'mailer' | 'publicUrl'>,
  trx: Trx,
  d: q.DrawRow,
  contest: number,
  winner: { userId: number | null; n: number | null },
): Promise<number | null> {
  if (winner.userId === null || winner.n === null) return null;
  const user = await trx('users').where({ id: winner.userId }).first('name', 'email');
  if (!user) return null;
  // The prize and its claim deadline as recorded by this decision (RULES W10).
  const row: q.DrawRow = (await trx('draws').where({ id: d.id }).first()) ?? d;
  const claim = claimFor({ realized_at: row.realized_at ?? new Date(), redeemed: row.redeemed }, await readPrizeContact(trx));
  return deps.mailer.enqueue(trx, winnerMail(deps.publicUrl, row, user, contest, winner.n, { prize: prizeOf(row), claim }));
}

/**
 * Decides one draw in `trx` (its row locked here): null when it is no longer `closed`
 * (already decided by a parallel run, or reopened). Returns the outbox id of the winner's mail.
 */
export async function decideLocked(deps: ResultsDeps, trx: Trx, drawId: number, r: ContestNumbers, by: Actor) {
  const d = await q.lockDraw(trx, drawId, 'update');
  if (!d || d.status !== 'closed') return null;
  const { decision, decided, inputs } = await applyWinnerRule(trx, d, r);
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
      inputs,
      walk: decision.walk,
      winning_number: decision.winning_number,
      winner_user_id: decision.winner_user_id,
      before: { status: d.status },
      after: {
        status: after.status,
        realized_at: iso(after.realized_at),
        contest_number: after.contest_number,
        no_winner: after.no_winner,
      },
    },
  });
  const outboxId = await mailWinner(deps, trx, d, r.contest_number, { userId: decision.winner_user_id, n: decision.winning_number });
  deps.readCache.invalidateAllAfterCommit(trx);
  return { decided, outboxId };
}

/** After a decision committed: the boards of its draws are read again and its mails go out (the sweep retries). */
export async function afterDecisions(deps: ResultsDeps, drawIds: number[], outboxIds: Array<number | null>) {
  for (const id of drawIds) deps.draws.invalidateBoard(id);
  for (const o of outboxIds) {
    if (o !== null)
      await deps.mailer
        .dispatch(o)
        .catch((err) => deps.logger.warn({ outboxId: o, err: (err as Error).message }, 'winner mail: dispatch failed; the sweep sends it'));
  }
}

/** Decides every closed draw this stored result decides (RULES W1), each in its own transaction. */
export async function decidePending(deps: ResultsDeps, r: ResultRow, by: Actor): Promise<DecidedDraw[]> {
  const ids = await eligibleDrawIds(deps.db, r.contest_number, r.held_at);
  const out: DecidedDraw[] = [];
  for (const id of ids) {
    const x = await deps.db.transaction((trx) => decideLocked(deps, trx, id, r, by));
    if (!x) continue;
    await afterDecisions(deps, [id], [x.outboxId]);
    deps.logger.info(
      { drawId: id, contest: r.contest_number, winningNumber: x.decided.winning_number, winnerUserId: x.decided.winner_user_id },
      'draw decided',
    );
    out.push(x.decided);
  }
  return out;
}
