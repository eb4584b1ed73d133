/**
 * Result shapes (RULES W2-W4), declared once: the server (src/draws/results.ts) returns them and the
 * web re-exports them (web/src/api/types.ts). Types only. Times are ISO-8601 strings.
 */
import type { DrawStatus } from './draws';

/**
 * Why a drawn number did not win: beyond the board (≥ total_numbers), not sold in the draw, or
 * sold but voided (its payment was refunded or charged back).
 */
export type WalkReason = 'out_of_range' | 'not_sold' | 'voided';

export interface WalkStep {
  n: number;
  reason: WalkReason;
}

/** GET /api/draws/{id}/result (public): anyone can recompute the winner from it. */
export interface DrawResult {
  draw_id: number;
  title: string;
  total_numbers: number;
  contest_number: number;
  /** When the Lotomania contest was held. */
  drawn_at: string;
  /** When the draw was decided. */
  realized_at: string | null;
  /** The 20 numbers in draw order. */
  numbers: number[];
  /** Each drawn number passed over (last drawn first), with why it did not win. */
  walk: WalkStep[];
  winning_number: number | null;
  winner_initials: string | null;
  no_winner: boolean;
}

/** The admin's preview of a result for a draw (nothing saved). */
export interface ResultPreview {
  draw_id: number;
  title: string;
  status: DrawStatus;
  total_numbers: number;
  contest_number: number;
  /** Known when the result was fetched or is already stored. */
  drawn_at: string | null;
  numbers: number[];
  walk: WalkStep[];
  winning_number: number | null;
  winner_user_id: number | null;
  winner_name: string | null;
  winner_email: string | null;
  no_winner: boolean;
  sold_count: number;
  /** The same contest already stored with other numbers: recording would be refused. */
  stored_numbers: number[] | null;
}

/** A draw decided (or re-decided) by recording a result. */
export interface DecidedDraw {
  draw_id: number;
  title: string;
  contest_number: number;
  winning_number: number | null;
  winner_user_id: number | null;
  no_winner: boolean;
  walk: WalkStep[];
}

/** A stored Lotomania result with the draws it decided. */
export interface ContestResult {
  contest_number: number;
  drawn_at: string;
  numbers: number[];
  source: 'cli' | 'admin' | 'service';
  created_at: string;
  draws: Array<{
    draw_id: number;
    title: string;
    status: DrawStatus;
    winning_number: number | null;
    no_winner: boolean;
    winner_initials: string | null;
  }>;
}

/** Recording a result: whether it was new, and the draws it decided now. */
export interface RecordOutcome {
  contest_number: number;
  drawn_at: string;
  numbers: number[];
  created: boolean;
  decided: DecidedDraw[];
}
