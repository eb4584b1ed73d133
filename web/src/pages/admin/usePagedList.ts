import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api/client';
import type { Page } from '../../api/types';

/**
 * A paginated admin list (`limit`, `offset`, `hasMore`) with a search text: the first page loads
 * on mount and whenever `search` changes, `loadMore` appends the next page, `reload` starts over.
 * A failure keeps what was shown and sets `error` to the text to show the person.
 */
export function usePagedList<T>(load: (q: { search: string; offset: number; limit: number }, signal: AbortSignal) => Promise<Page<T>>, search: string, fallback: string, limit = 20) {
  const [items, setItems] = useState<T[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const ctrl = useRef<AbortController | null>(null);

  useEffect(() => {
    const c = new AbortController();
    ctrl.current?.abort();
    ctrl.current = c;
    setLoading(true);
    setError(null);
    load({ search, offset: 0, limit }, c.signal)
      .then((page) => {
        setItems(page.items);
        setHasMore(page.hasMore);
      })
      .catch((err) => {
        if (c.signal.aborted) return;
        setItems([]);
        setHasMore(false);
        setError(errorMessage(err, fallback));
      })
      .finally(() => {
        if (!c.signal.aborted) setLoading(false);
      });
    return () => c.abort();
  }, [load, search, fallback, limit, attempt]);

  const loadMore = useCallback(() => {
    const c = new AbortController();
    ctrl.current = c;
    setLoadingMore(true);
    setError(null);
    load({ search, offset: items.length, limit }, c.signal)
      .then((page) => {
        setItems((prev) => [...prev, ...page.items]);
        setHasMore(page.hasMore);
      })
      .catch((err) => {
        if (!c.signal.aborted) setError(errorMessage(err, fallback));
      })
      .finally(() => {
        if (!c.signal.aborted) setLoadingMore(false);
      });
  }, [load, search, fallback, limit, items.length]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  /** Replaces one loaded item in place (after an edit). */
  const replace = useCallback((match: (item: T) => boolean, next: T) => setItems((prev) => prev.map((x) => (match(x) ? next : x))), []);
  return { items, hasMore, loading, loadingMore, error, loadMore, reload, replace };
}
