import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { initialsOf } from '../shared/initials';
import type { MyBoardCell, MyDrawBoard } from '../shared/api/account';
import * as q from './queries';
import { drawResultFor, drawStatusWord } from './serializers';
import { iso } from '../shared/iso';
import { claimFor, prizeOf } from '../shared/prize';
import { readAppConfig } from '../platform/app-config';

const STATE: Record<q.BoardNumber['status'], MyBoardCell['state']> = { available: 'open', reserved: 'reserved', sold: 'taken' };

/** Cell labels are zero-padded to the width of the draw's last number (00-99 for 100). */
export function cellLabel(n: number, totalNumbers: number): string {
  return String(n).padStart(Math.max(2, String(Math.max(0, totalNumbers - 1)).length), '0');
}

export interface MyBoardService {
  /** GET /api/me/draws/{id}/board: any logged-in user may open any draw; only the caller's numbers are marked. */
  board(userId: number, drawId: number): Promise<MyDrawBoard>;
}

export function createMyBoardService(deps: { db: Db }): MyBoardService {
  const { db } = deps;
  return {
    async board(userId, drawId) {
      const draw = await q.findDraw(db, drawId);
      if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
      const [cells, product, winner] = await Promise.all([
        q.boardNumbers(db, drawId),
        draw.infoproduct_id ? db('infoproducts').where({ id: draw.infoproduct_id }).first('sku') : Promise.resolve(undefined),
        draw.status === 'drawn' && draw.winner_user_id
          ? db('users').where({ id: draw.winner_user_id }).first('name')
          : Promise.resolve(undefined),
      ]);
      const drawn = draw.status === 'drawn';
      // RULES W10: the claim (deadline, how, the store's contact) is the winner's alone.
      const won = drawn && draw.winner_user_id === userId && draw.winner_number != null && draw.realized_at != null;
      const config = won ? await readAppConfig(db) : null;
      const claim =
        won && config && draw.realized_at
          ? claimFor(
              { realized_at: draw.realized_at, redeemed: Boolean(draw.redeemed) },
              { whatsapp: config.prize_contact_whatsapp, email: config.prize_contact_email },
            )
          : null;
      const winnerNumber = drawn ? draw.winner_number : null;
      // Other people's names never leave the server: initials only, unless the caller won.
      const winnerName = winner ? (draw.winner_user_id === userId ? winner.name : initialsOf(winner.name)) : null;
      const mine: number[] = [];
      const board: MyBoardCell[] = cells.map((c) => {
        const isMine = c.status === 'sold' && c.owner_user_id === userId;
        if (isMine) mine.push(c.n);
        return {
          n: c.n,
          label: cellLabel(c.n, draw.total_numbers),
          state: STATE[c.status],
          isMine,
          isWinner: winnerNumber != null && c.n === winnerNumber,
        };
      });
      return {
        draw: {
          id: draw.id,
          status: drawStatusWord(draw.status),
          result: drawResultFor(draw, userId, mine.length > 0),
          title: draw.title,
          winner_number: winnerNumber,
          winner_name: winnerName,
          product_name: draw.product_name,
          product_link: draw.product_link,
          realized_at: iso(draw.realized_at),
          closed_at: iso(draw.closed_at),
          sku: product?.sku ?? null,
          prize: prizeOf(draw),
          claim,
        },
        board,
        my_numbers: mine,
      };
    },
  };
}
