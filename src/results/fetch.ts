import { iso } from '../shared/iso';
import { lotteryResultsWithoutDrawOrder } from '../platform/metrics';
import type { FetchOutcome } from './lottery-client';
import { noteDrawOrderMissing } from './alerts';
import { findResult, type Actor, type FetchReport, type ResultRow, type ResultsDeps } from './model';
import { recordParsed } from './record';
import { ContestNumber } from './schemas';

/** Fetching results from the Lotomania results service (RULES W1, W7, W9): the `results.fetch` job, the CLI and the console. */

const SYSTEM: Actor = { actorUserId: null, actor: 'system' };

/** Asks the service for a contest, using the stored result when there is one. */
async function resultOf(deps: ResultsDeps, contest: number): Promise<{ stored: ResultRow | undefined; fetched: FetchOutcome | null }> {
  const stored = await findResult(deps.db, contest);
  if (stored) return { stored, fetched: null };
  return { stored: undefined, fetched: await deps.lottery.fetchContest(contest) };
}

/**
 * RULES W9: the service published a contest without its draw order. Unless that contest is
 * already stored (typed in), the sighting counts on the metric and the first one per contest is
 * audited and logged as an error; the admin's draws answers show it on the draws it holds up.
 */
export async function noDrawOrder(
  deps: ResultsDeps,
  f: FetchOutcome & { status: 'no_draw_order' },
  report?: FetchReport,
): Promise<{ stored: boolean }> {
  const seen = await noteDrawOrderMissing(deps.db, f);
  if (seen.stored) {
    report?.fetched.push({ contest_number: f.contest_number, status: 'stored' });
    return seen;
  }
  lotteryResultsWithoutDrawOrder.inc();
  if (seen.first)
    deps.logger.error(
      { contest: f.contest_number, drawnAt: iso(f.drawn_at) },
      'results service published a contest without its draw order: closed draws wait for an operator to type it',
    );
  else deps.logger.warn({ contest: f.contest_number }, 'results service still without the draw order of a contest');
  report?.fetched.push({
    contest_number: f.contest_number,
    status: 'no_draw_order',
    message: `${f.message} Registre o resultado digitando os 20 números na ordem do sorteio: cotaverde results record --contest ${f.contest_number} --numbers "…" --drawn-at <data e hora>.`,
  });
  return seen;
}

export async function fetchResults(deps: ResultsDeps, opts: { contest?: number } = {}, by: Actor = SYSTEM): Promise<FetchReport> {
  const { db, logger } = deps;
  const report: FetchReport = { fetched: [], decided: [], pending: 0 };
  const recordFetched = async (f: FetchOutcome & { status: 'drawn' }) => {
    const out = await recordParsed(
      deps,
      { contest_number: f.contest_number, numbers: f.numbers, drawn_at: f.drawn_at },
      { ...by, source: 'service' },
    );
    report.decided.push(...out.decided);
  };
  const pendingCount = async () => Number((await db('draws').where({ status: 'closed' }).count<{ c: string }[]>({ c: '*' }))[0].c);

  if (opts.contest !== undefined) {
    const c = ContestNumber.parse(opts.contest);
    const f = await deps.lottery.fetchContest(c);
    if (f.status === 'no_draw_order') await noDrawOrder(deps, f, report);
    else
      report.fetched.push(
        f.status === 'drawn' ? { contest_number: c, status: 'drawn' } : { contest_number: c, status: 'not_drawn', message: f.message },
      );
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
    } else await noDrawOrder(deps, f, report);
  };
  await take(latest);
  let cursor: { contest_number: number; drawn_at: Date } = latest;
  for (let steps = 0; steps < 30; steps++) {
    if (cursor.drawn_at <= earliestClosed || cursor.contest_number <= 1) break;
    const { stored, fetched } = await resultOf(deps, cursor.contest_number - 1);
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
}
