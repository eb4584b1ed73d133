import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Keeps the board clear of the selection panel pinned to the bottom of a phone's screen (WCAG 2.2
 * SC 2.4.11, focus not obscured): while the panel is sticky, the page's scroll padding at the
 * bottom equals the panel's height (measured with a ResizeObserver, so chips and a collapse count),
 * so a focused cell and the last row scroll clear of it; and a cell that gets the focus behind
 * the panel (or the sticky top bar) is scrolled clear. Runs in effects only (the page renders on the server too).
 * Returns the ref to put on the panel.
 */
export function usePanelClearance<T extends HTMLElement>() {
  const [panel, setPanel] = useState<T | null>(null);
  const height = useRef(0);
  const ref = useCallback((el: T | null) => setPanel(el), []);

  useEffect(() => {
    if (!panel || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const apply = () => {
      const pinned = getComputedStyle(panel).position === 'sticky';
      height.current = pinned ? Math.ceil(panel.getBoundingClientRect().height) : 0;
      root.style.scrollPaddingBottom = height.current ? `${height.current + 8}px` : '';
    };
    apply();
    const ro = new ResizeObserver(apply);
    ro.observe(panel);
    window.addEventListener('resize', apply);

    // A focused cell (or any control above the panel) that ends up behind it scrolls clear.
    const onFocus = (e: FocusEvent) => {
      const target = e.target;
      if (!(target instanceof HTMLElement) || !height.current || panel.contains(target) || target.closest('dialog')) return;
      requestAnimationFrame(() => {
        const box = target.getBoundingClientRect();
        const top = panel.getBoundingClientRect().top;
        if (box.bottom > top - 4 && box.top < window.innerHeight) window.scrollBy({ top: box.bottom - top + 8, behavior: 'instant' });
        // Nor under the sticky top bar.
        const bar = document.querySelector('.topbar');
        const barBottom = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().bottom : 0;
        if (box.top < barBottom + 4 && box.bottom > 0) window.scrollBy({ top: box.top - barBottom - 8, behavior: 'instant' });
      });
    };
    document.addEventListener('focusin', onFocus);
    return () => {
      ro.disconnect();
      window.removeEventListener('resize', apply);
      document.removeEventListener('focusin', onFocus);
      root.style.scrollPaddingBottom = '';
    };
  }, [panel]);

  return ref;
}
