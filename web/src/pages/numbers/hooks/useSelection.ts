import { useCallback, useEffect, useState } from 'react';
import { sortUnique } from '../board';

/**
 * The numbers picked on the board (storefront spec §3 "Selection context": list, setter, clear), tied to one
 * draw: switching draws starts an empty selection.
 *
 * A visitor sent to /login to confirm comes back to a fresh page; the picks made before are kept
 * for that trip in session storage and handed back once.
 */
const PENDING_KEY = 'cv_numeros_selecao';
const PENDING_TTL_MS = 30 * 60 * 1000;

export interface PendingSelection {
  drawId: number;
  numbers: number[];
}

export function savePendingSelection(p: PendingSelection): void {
  try {
    window.sessionStorage.setItem(PENDING_KEY, JSON.stringify({ ...p, at: Date.now() }));
  } catch {
    /* storage unavailable: the picks are simply not remembered */
  }
}

/** The saved picks (if any, and recent). Reading does not remove them; see clearPendingSelection. */
export function readPendingSelection(): PendingSelection | null {
  try {
    const raw = window.sessionStorage.getItem(PENDING_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as { drawId?: unknown; numbers?: unknown; at?: unknown };
    if (typeof v.at !== 'number' || Date.now() - v.at > PENDING_TTL_MS) return null;
    if (typeof v.drawId !== 'number' || !Array.isArray(v.numbers)) return null;
    const numbers = sortUnique(v.numbers.filter((n): n is number => Number.isInteger(n) && n >= 0 && n <= 99));
    return numbers.length ? { drawId: v.drawId, numbers } : null;
  } catch {
    return null;
  }
}

function clearPendingSelection(): void {
  try {
    window.sessionStorage.removeItem(PENDING_KEY);
  } catch {
    /* ignore */
  }
}

export function useSelection(drawId: number | null, pending: PendingSelection | null) {
  const [state, setState] = useState<{ drawId: number | null; numbers: number[] }>(() =>
    pending ? { drawId: pending.drawId, numbers: pending.numbers } : { drawId: null, numbers: [] },
  );

  // Handed back once: a later visit starts clean.
  useEffect(() => {
    if (pending) clearPendingSelection();
  }, [pending]);

  const selected = drawId !== null && state.drawId === drawId ? state.numbers : [];

  const setSelected = useCallback(
    (next: number[] | ((prev: number[]) => number[])) =>
      setState((s) => {
        const prev = s.drawId === drawId ? s.numbers : [];
        return { drawId, numbers: sortUnique(typeof next === 'function' ? next(prev) : next) };
      }),
    [drawId],
  );
  const clear = useCallback(() => setState({ drawId, numbers: [] }), [drawId]);

  return { selected, setSelected, clear };
}
