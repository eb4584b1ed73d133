import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { moveFocus } from './keys';

/**
 * Roving tabindex of a number grid (the ARIA grid pattern): the grid is one Tab stop, the cell
 * that last had the focus; arrows, Home/End (Ctrl: first/last) and PageUp/PageDown move it.
 * Cells carry data-i, their position among the cells shown (the board may show only some
 * numbers: 'Só livres'); the hook returns the container ref and each cell's props (by position).
 */
export function useRovingGrid<T extends HTMLElement>(total: number) {
  const [active, setActive] = useState(0);
  const focusNext = useRef(false);
  const root = useRef<T>(null);
  const current = Math.min(active, Math.max(0, total - 1));
  useEffect(() => {
    if (!focusNext.current) return;
    focusNext.current = false;
    root.current?.querySelector<HTMLElement>(`[data-i="${current}"]`)?.focus();
  }, [current]);
  const cellProps = (n: number) => ({
    'data-i': n,
    tabIndex: n === current ? 0 : -1,
    onFocus: () => setActive(n),
    onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
      const to = moveFocus(n, e.key, total, e.ctrlKey || e.metaKey);
      if (to === null) return;
      e.preventDefault();
      if (to === n) return;
      focusNext.current = true;
      setActive(to);
    },
  });
  return { root, cellProps };
}
