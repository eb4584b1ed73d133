/**
 * The winner rule (RULES W2, W3), a pure function so anyone can recompute a result from its inputs:
 * the winning number is the LAST drawn number of the Lotomania contest; when that number is not
 * sold in the draw (or is ≥ total_numbers, e.g. 57 on a 50-number board), walk back through the
 * draw order to the last drawn number that is sold. Numbers of refunded or charged-back payments
 * are not in `sold` (the caller passes `soldNumbersThatCount`) and are named `voided` in the walk
 * (the caller passes `voidedNumbers`). No qualifying number: no winner.
 */

/** Why a drawn number was passed over. */
export type WalkReason = 'out_of_range' | 'not_sold' | 'voided';

export interface WalkStep {
  n: number;
  reason: WalkReason;
}

export interface SoldNumber {
  n: number;
  user_id: number;
}

export interface WinnerDecision {
  /** The number that won, or null when none of the twenty qualifies. */
  winning_number: number | null;
  winner_user_id: number | null;
  /** The drawn numbers passed over before the winner (last drawn first), each with why. */
  walk: WalkStep[];
}

/** Portuguese explanation of a walk step (public result page, CLI). */
export const WALK_REASON_TEXT: Record<WalkReason, string> = {
  out_of_range: 'fora do tabuleiro',
  not_sold: 'não vendido',
  voided: 'anulado (pagamento estornado)',
};

/** Twenty distinct whole numbers 00-99: the shape of a Lotomania result. Returns a problem, or null. */
export function lotomaniaNumbersProblem(numbers: readonly number[]): string | null {
  if (numbers.length !== 20) return `Informe exatamente 20 números (recebidos: ${numbers.length}).`;
  if (numbers.some((n) => !Number.isInteger(n) || n < 0 || n > 99)) return 'Cada número deve estar entre 00 e 99.';
  if (new Set(numbers).size !== 20) return 'Os 20 números devem ser distintos.';
  return null;
}

export function decideWinner(input: {
  numbers: readonly number[];
  totalNumbers: number;
  sold: readonly SoldNumber[];
  voided?: readonly number[];
}): WinnerDecision {
  const problem = lotomaniaNumbersProblem(input.numbers);
  if (problem) throw new Error(`decideWinner: ${problem}`);
  const owners = new Map(input.sold.map((s) => [s.n, s.user_id]));
  const voided = new Set(input.voided ?? []);
  const walk: WalkStep[] = [];
  for (let i = input.numbers.length - 1; i >= 0; i--) {
    const n = input.numbers[i];
    if (n >= input.totalNumbers) walk.push({ n, reason: 'out_of_range' });
    else if (!owners.has(n)) walk.push({ n, reason: voided.has(n) ? 'voided' : 'not_sold' });
    else return { winning_number: n, winner_user_id: owners.get(n)!, walk };
  }
  return { winning_number: null, winner_user_id: null, walk };
}
