import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * A list loaded once per mount, with skeleton and retry (storefront spec §8): `loading` while the
 * request runs; a failure ends as an empty list with `failed` set, so the page can offer
 * 'Tentar de novo'; `retry` loads again. `load` should be stable (declared at module level);
 * `warning` starts the console warning of a failure, e.g. '[home] produtos indisponíveis:'.
 * `initial`: the list the server rendered the page with (ssr/seeds.tsx): shown at once, and the
 * first load is skipped (it is at most a second old; live updates and retries load as usual).
 */
export function useRetryableList<T>(load: (signal: AbortSignal) => Promise<T[]>, warning: string, initial?: () => T[] | undefined) {
  const [seeded] = useState(() => initial?.());
  const [items, setItems] = useState<T[]>(seeded ?? []);
  const [loading, setLoading] = useState(!seeded);
  const skipFirstLoad = useRef(!!seeded);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (skipFirstLoad.current) {
      skipFirstLoad.current = false;
      return;
    }
    const ctrl = new AbortController();
    setLoading(true);
    setFailed(false);
    load(ctrl.signal)
      .then((list) => setItems(list))
      .catch((err) => {
        if (ctrl.signal.aborted) return;
        console.warn(warning, err);
        setItems([]);
        setFailed(true);
      })
      .finally(() => {
        if (!ctrl.signal.aborted) setLoading(false);
      });
    return () => ctrl.abort();
  }, [load, warning, attempt]);

  const retry = useCallback(() => setAttempt((a) => a + 1), []);
  /** Loads again without the skeleton, keeping the list on screen if it fails (live updates). */
  const refresh = useCallback(() => {
    load(new AbortController().signal).then(
      (list) => {
        setItems(list);
        setFailed(false);
      },
      (err) => console.warn(warning, err),
    );
  }, [load, warning]);
  return { items, loading, failed, retry, refresh };
}
