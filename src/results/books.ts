import type { Conn } from '../platform/db';
import { booksCheck, rowsOf, type BooksCheck } from '../platform/books';
import { soldNumbersThatCount } from '../draws/queries';
import { decideWinner, lotomaniaNumbersProblem } from './winner-rule';
import { GAME } from './alerts';

/** The results' part of the books (RULES B1), read-only: the decided winners. Ids: a draw id. */
export async function resultsBooks(conn: Conn): Promise<BooksCheck[]> {
  return decidedWinners(conn);
}

/**
 * RULES W3, W4 for every decided ('drawn') draw:
 * - `no_void_sale_wins`: the stored winner holds the winning number through a sale that counts
 *   (soldNumbersThatCount: live, and not of a refunded or charged-back payment);
 * - `decided_winners_rederive`: the winner re-derived from the stored Lotomania result with the
 *   one winner rule (decideWinner) over today's counting sales equals the stored one (number,
 *   user, or no winner). A refund that reached a winner after the decision shows up here.
 */
async function decidedWinners(conn: Conn): Promise<BooksCheck[]> {
  const draws = await rowsOf<{
    id: number;
    total_numbers: number;
    winner_user_id: number | null;
    winner_number: number | null;
    no_winner: boolean;
    numbers: number[] | null;
  }>(
    conn,
    `SELECT d.id, d.total_numbers, d.winner_user_id, d.winner_number, d.no_winner, r.numbers
       FROM draws d
       LEFT JOIN lottery_results r ON r.game = ? AND r.contest_number = d.contest_number
      WHERE d.status = 'drawn'
      ORDER BY d.id`,
    [GAME],
  );
  const voidWins: number[] = [];
  const mismatched: number[] = [];
  for (const d of draws) {
    const sold = await soldNumbersThatCount(conn, d.id);
    if (d.winner_number !== null && !sold.some((s) => s.n === d.winner_number && s.user_id === d.winner_user_id)) voidWins.push(d.id);
    if (!d.numbers || lotomaniaNumbersProblem(d.numbers)) {
      mismatched.push(d.id); // decided without a stored result the rule can read
      continue;
    }
    const again = decideWinner({ numbers: d.numbers, totalNumbers: d.total_numbers, sold });
    const storedNumber = d.no_winner ? null : d.winner_number;
    if (again.winning_number !== storedNumber || again.winner_user_id !== (d.no_winner ? null : d.winner_user_id)) mismatched.push(d.id);
  }
  return [booksCheck('no_void_sale_wins', voidWins), booksCheck('decided_winners_rederive', mismatched)];
}
