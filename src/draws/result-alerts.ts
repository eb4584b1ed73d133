import type { Conn } from '../platform/db';
import { iso } from '../shared/iso';
import type { ResultAlert } from '../shared/api/admin-draws';

/**
 * The reads of the results module's alerts (RULES W9, results/alerts.ts writes them) that draws'
 * answers show: the open alert a closed draw waits on (`result_alert` of the admin's draws and
 * history answers) and the count of open alerts (the metrics gauge).
 */

/** The one game whose contests decide draws (`lottery_results.game`, `lottery_result_alerts.game`). */
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
 * The open alert each closed draw waits on: the earliest unresolved alert of a contest held after
 * the draw closed (the contest that decides it, or a later one the job will also need).
 */
export async function resultAlertsFor(
  conn: Conn,
  draws: Array<{ id: number; status: string; closed_at: Date | null }>,
): Promise<Map<number, ResultAlert>> {
  const out = new Map<number, ResultAlert>();
  const waiting = draws.filter((d) => d.status === 'closed' && d.closed_at);
  if (!waiting.length) return out;
  const earliest = new Date(Math.min(...waiting.map((d) => new Date(d.closed_at!).getTime())));
  const open: Array<{ contest_number: number; kind: 'draw_order_missing'; held_at: Date; first_seen_at: Date }> = await conn(
    'lottery_result_alerts',
  )
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
