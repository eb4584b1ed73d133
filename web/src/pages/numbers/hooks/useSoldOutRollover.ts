import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { errorMessage } from '../../../api/client';
import type { Draw } from '../../../api/types';
import { isSoldOut, type Board } from '../board';
import { openDrawOf } from './useNumbersData';

/**
 * Storefront spec §4: a board with no free number left gives way to the product's next open draw
 * (the selection is cleared and the page moves to it, saying so). Once per sold-out draw; the
 * closed-draws list is reloaded (`closedVersion`); `soldOutError` says why no new draw opened.
 */
export function useSoldOutRollover({
  board,
  draw,
  signedIn,
  clear,
}: {
  board: Board | null;
  draw: Draw | null;
  signedIn: boolean;
  clear(): void;
}): { closedVersion: number; soldOutError: string | null; rolledOver: string | null } {
  const location = useLocation();
  const navigate = useNavigate();
  const [closedVersion, setClosedVersion] = useState(0);
  const [soldOutError, setSoldOutError] = useState<string | null>(null);
  /** 'Tabela esgotada! Nova rodada (#N) aberta automaticamente.', shown above the new board. */
  const [rolledOver, setRolledOver] = useState<string | null>(null);
  const handled = useRef(new Set<number>());

  useEffect(() => {
    if (!board || !draw || board.draw_id !== draw.id || !isSoldOut(board)) return;
    if (handled.current.has(board.draw_id)) return;
    handled.current.add(board.draw_id);
    setClosedVersion((v) => v + 1);
    if (!draw.infoproduct_id) return;
    const soldOutId = board.draw_id;
    openDrawOf(draw.infoproduct_id, signedIn).then(
      (nextId) => {
        if (!nextId || nextId === soldOutId) return;
        setSoldOutError(null);
        clear();
        navigate(location.pathname, { replace: true, state: { drawId: nextId }, preventScrollReset: true });
        setRolledOver(`Tabela esgotada! Nova rodada (#${nextId}) aberta automaticamente.`);
      },
      (err) => setSoldOutError(errorMessage(err, 'Não foi possível abrir a nova rodada agora.')),
    );
  }, [board, draw, signedIn, clear, navigate, location.pathname]);

  return { closedVersion, soldOutError, rolledOver };
}
