import { useMemo } from 'react';
import { initialsOf } from '../../../../../src/shared/initials';
import type { User } from '../../../auth/user';
import { ownNumbers, type Board, type MyReservation } from '../board';

/**
 * The signed-in visitor's numbers on the board on screen (board.ts ownNumbers): from their
 * reservations, the numbers just confirmed here, and the initials the board shows on sold cells
 * (RULES N8).
 */
export function useMyNumbers({
  signedIn,
  user,
  board,
  reservations,
  confirmed,
}: {
  signedIn: boolean;
  user: User | null;
  board: Board | null;
  reservations: MyReservation[];
  confirmed: { drawId: number; numbers: number[] } | null;
}): number[] {
  const myInitials = signedIn && user ? initialsOf(user.name) || null : null;
  return useMemo(
    () =>
      signedIn
        ? ownNumbers(board, {
            reservations,
            confirmed: confirmed && confirmed.drawId === board?.draw_id ? confirmed.numbers : [],
            initials: myInitials,
          })
        : [],
    [signedIn, board, reservations, confirmed, myInitials],
  );
}
