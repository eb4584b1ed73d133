import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { iso } from '../shared/iso';
import type { DecidedDraw, RecordOutcome } from '../shared/api/results';
import { resolveResultAlerts } from './alerts';
import { assertContestOrder } from './contests';
import { decidePending } from './decide';
import { GAME, correctionHint, findResult, sameNumbers, type Actor, type ResultRow, type ResultsDeps, type Source } from './model';

/** Recording a contest (RULES W5: once; the same numbers again change nothing) and deciding what it decides. */

/** Stores the result once; the stored row (same numbers) or a 409 (other numbers). */
async function store(
  deps: ResultsDeps,
  cmd: { contest_number: number; numbers: number[]; drawn_at?: Date; force?: boolean },
  by: Actor & { source: Source },
): Promise<{ row: ResultRow; created: boolean }> {
  const heldAt = cmd.drawn_at ?? new Date();
  if (heldAt.getTime() > Date.now() + 5 * 60_000)
    throw errors.validation('drawn_at_in_future', 'A data do concurso não pode estar no futuro.');
  return deps.db.transaction(async (trx) => {
    // Typed results only: the results service's own numbers and dates are the reference.
    if (by.source !== 'service' && !cmd.force && !(await findResult(trx, cmd.contest_number)))
      await assertContestOrder(trx, cmd.contest_number, heldAt);
    const inserted: ResultRow[] = await trx('lottery_results')
      .insert({
        game: GAME,
        contest_number: cmd.contest_number,
        held_at: heldAt,
        numbers: cmd.numbers,
        source: by.source,
        recorded_by: by.actorUserId,
      })
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
        data: {
          before: null,
          after: { contest_number: cmd.contest_number, drawn_at: iso(heldAt), numbers: cmd.numbers, source: by.source },
        },
      });
      // RULES W9: the contest is stored now; an alert about its missing draw order is over.
      await resolveResultAlerts(trx, cmd.contest_number);
      return { row: inserted[0], created: true };
    }
    const existing = (await findResult(trx, cmd.contest_number))!;
    if (!sameNumbers(existing.numbers, cmd.numbers))
      throw errors.conflict('result_conflict', correctionHint(cmd.contest_number), { stored_numbers: existing.numbers });
    return { row: existing, created: false };
  });
}

export const outcomeOf = (row: ResultRow, created: boolean, decided: DecidedDraw[]): RecordOutcome => ({
  contest_number: row.contest_number,
  drawn_at: iso(row.held_at),
  numbers: row.numbers,
  created,
  decided,
});

export async function recordParsed(
  deps: ResultsDeps,
  cmd: { contest_number: number; numbers: number[]; drawn_at?: Date; force?: boolean },
  by: Actor & { source: Source },
) {
  const { row, created } = await store(deps, cmd, by);
  const decided = await decidePending(deps, row, by);
  return outcomeOf(row, created, decided);
}
