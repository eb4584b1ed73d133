import type { Conn, Db } from '../platform/db';
import { audit } from '../platform/audit';
import { iso } from '../shared/iso';
import type { ResultAlert } from '../shared/api/admin-draws';

/**
 * Alerts about the Lotomania results service (RULES W9), in `lottery_result_alerts` (draws owns it):
 * a contest the service published without the draw order the winner rule needs. Each sighting
 * counts on the metric `cotaverde_lottery_results_without_draw_order_total` (results.ts); the first
 * one of a contest is audited (`lottery_result.draw_order_missing`), later polls only update the row.
 * Storing that contest's result (typed in, or fetched once the order appears) resolves it. The
 * admin's draws answers carry the open alert of a closed draw as `result_alert`.
 */

/** The one game results are stored for (`lottery_results.game`). */
export const GAME = 'lotomania';

const BRT = { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric' } as const;

/** The console's message for a closed draw waiting on a contest published without its draw order. */
export function drawOrderMissingMessage(contest: number, heldAt: Date): string {
  return (
    `O serviço de resultados publicou o concurso ${contest} (${heldAt.toLocaleDateString('pt-BR', BRT)}) sem a ordem do sorteio, ` +
    'que a regra do vencedor exige: este sorteio não será apurado automaticamente enquanto ela faltar. ' +
    'Registre o resultado digitando os 20 números na ordem em que foram sorteados (botão “Registrar resultado” ou cotaverde results record).'
  );
}

/**
 * Records a sighting of a contest published without its draw order (the caller counts it on the
 * metric): the first time per contest it writes the alert and its audit entry in one transaction. Answers whether this
 * sighting was the first. A contest already stored (typed in by an operator) raises nothing.
 */
export async function noteDrawOrderMissing(db: Db, f: { contest_number: number; drawn_at: Date; sorted_numbers: number[] }): Promise<{ first: boolean; stored: boolean }> {
  return db.transaction(async (trx) => {
    const stored = await trx('lottery_results').where({ game: GAME, contest_number: f.contest_number }).first('id');
    if (stored) return { first: false, stored: true };
    const r = await trx.raw(
      `INSERT INTO lottery_result_alerts (game, contest_number, kind, held_at)
       VALUES (?, ?, 'draw_order_missing', ?)
       ON CONFLICT (game, contest_number, kind)
       DO UPDATE SET last_seen_at = now(), seen_count = lottery_result_alerts.seen_count + 1
       RETURNING (xmax = 0) AS inserted, resolved_at`,
      [GAME, f.contest_number, f.drawn_at],
    );
    const first = Boolean(r.rows[0]?.inserted);
    if (first) {
      await audit(trx, {
        actor: 'system',
        action: 'lottery_result.draw_order_missing',
        entity: 'lottery_result',
        entityId: f.contest_number,
        data: { game: GAME, contest_number: f.contest_number, drawn_at: iso(f.drawn_at), sorted_numbers: f.sorted_numbers },
      });
    }
    return { first, stored: false };
  });
}

/** The contest's result is stored now: its open alerts are resolved (in the storing transaction). */
export async function resolveResultAlerts(conn: Conn, contest: number): Promise<void> {
  await conn('lottery_result_alerts').where({ game: GAME, contest_number: contest }).whereNull('resolved_at').update({ resolved_at: conn.fn.now() });
}

/**
 * The open alert each closed draw waits on: the earliest unresolved alert of a contest held after
 * the draw closed (the contest that decides it, or a later one the job will also need).
 */
export async function resultAlertsFor(conn: Conn, draws: Array<{ id: number; status: string; closed_at: Date | null }>): Promise<Map<number, ResultAlert>> {
  const out = new Map<number, ResultAlert>();
  const waiting = draws.filter((d) => d.status === 'closed' && d.closed_at);
  if (!waiting.length) return out;
  const earliest = new Date(Math.min(...waiting.map((d) => new Date(d.closed_at!).getTime())));
  const open: Array<{ contest_number: number; kind: 'draw_order_missing'; held_at: Date; first_seen_at: Date }> = await conn('lottery_result_alerts')
    .where({ game: GAME })
    .whereNull('resolved_at')
    .where('held_at', '>', earliest)
    .orderBy('contest_number')
    .select('contest_number', 'kind', 'held_at', 'first_seen_at');
  for (const d of waiting) {
    const a = open.find((x) => x.held_at > new Date(d.closed_at!));
    if (!a) continue;
    out.set(d.id, {
      kind: a.kind,
      contest_number: a.contest_number,
      drawn_at: iso(a.held_at)!,
      since: iso(a.first_seen_at)!,
      message: drawOrderMissingMessage(a.contest_number, new Date(a.held_at)),
    });
  }
  return out;
}

/** Open alerts (the scrape-time gauge). */
export async function openResultAlertCount(conn: Conn): Promise<number> {
  const r = await conn('lottery_result_alerts').whereNull('resolved_at').count<{ n: string }[]>({ n: '*' });
  return Number(r[0].n);
}
