import type { Db, Trx } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { Mailer } from '../platform/mail';
import type { ReadCache } from '../platform/read-cache';
import type { DecidedDraw, WalkStep } from '../shared/api/results';
import type { DrawsService } from '../draws/service';
import type { LotteryClient } from './lottery-client';
import { GAME } from './alerts';
import type { RefundedSales } from '../draws/vouchers';

/** The words of the results module: a stored contest, who acts, why a draw is decided again. */

export { GAME, type RefundedSales };
export type Actor = { actorUserId: number | null; actor: 'cli' | 'admin' | 'system' };
export type Source = 'cli' | 'admin' | 'service';

/** What the results service is built from (wired in services.ts). */
export interface ResultsDeps {
  db: Db;
  logger: Logger;
  mailer: Mailer;
  readCache: ReadCache;
  draws: DrawsService;
  lottery: LotteryClient;
  publicUrl: string;
}

/** A stored contest (`lottery_results`, one per game and contest: RULES W5). */
export interface ResultRow {
  id: number;
  game: string;
  contest_number: number;
  held_at: Date;
  numbers: number[];
  source: Source;
  recorded_by: number | null;
  created_at: Date;
}

/** The part of a contest the winner rule reads. */
export type ContestNumbers = { contest_number: number; held_at: Date; numbers: number[] };

/** Why a decided draw is decided again: an operator's correction, or a refund that voided the winner's sale (RULES W8). */
export type Redecision =
  | { kind: 'correction'; reason: string }
  | { kind: 'refund'; reason: string; paymentId: number; paymentStatus: 'refunded' | 'charged_back' };

export interface FetchReport {
  /** Contests asked for, with what the service said. */
  fetched: Array<{ contest_number: number | null; status: 'drawn' | 'not_drawn' | 'stored' | 'no_draw_order'; message?: string }>;
  decided: DecidedDraw[];
  /** Closed draws still waiting for their contest. */
  pending: number;
}

export const sameNumbers = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((n, i) => n === b[i]);
export const pad = (n: number) => String(n).padStart(2, '0');
export const correctionHint = (c: number) =>
  `O concurso ${c} já foi registrado com outros números. Para corrigir, use: cotaverde results correct --contest ${c} --numbers "<20 números>" --reason "<motivo>".`;

export const findResult = (conn: Db | Trx, contest: number): Promise<ResultRow | undefined> =>
  conn('lottery_results').where({ game: GAME, contest_number: contest }).first();
/** The walk of a stored decision: the numbers drawn after the winning one (last first), or all twenty. */
export function walkOf(
  numbers: readonly number[],
  winningNumber: number | null,
  totalNumbers: number,
  voided: readonly number[] = [],
): WalkStep[] {
  const after = winningNumber === null ? [...numbers] : numbers.slice(numbers.indexOf(winningNumber) + 1);
  return after.reverse().map((n) => ({ n, reason: n >= totalNumbers ? 'out_of_range' : voided.includes(n) ? 'voided' : 'not_sold' }));
}
