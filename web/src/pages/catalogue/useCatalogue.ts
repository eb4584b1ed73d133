import { useCallback, useEffect, useState } from 'react';
import { api } from '../../api/client';
import type { CatalogueSection } from '../../api/types';

/** A list of sections; anything else (or a failure) is an empty list (storefront spec §4, §7, §8). */
function sectionsOf(body: unknown): CatalogueSection[] {
  if (!Array.isArray(body)) return [];
  return body
    .filter((s): s is CatalogueSection => !!s && typeof s === 'object')
    .map((s) => ({ ...s, items: Array.isArray(s.items) ? s.items.filter((i) => i && typeof i === 'object' && i.product) : [] }));
}

/** GET /api/infoproducts/sections?onlyOpen=1: loading, then loaded. */
export function useCatalogue() {
  const [sections, setSections] = useState<CatalogueSection[]>([]);
  const [loading, setLoading] = useState(true);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const ctrl = new AbortController();
    setLoading(true);
    setFailed(false);
    api
      .get('/api/infoproducts/sections', { query: { onlyOpen: 1 }, signal: ctrl.signal })
      .then((body) => setSections(sectionsOf(body)))
      .catch((err) => {
        if (ctrl.signal.aborted) return;
        console.warn('[catálogo] seções indisponíveis:', err);
        setSections([]);
        setFailed(true);
      })
      .finally(() => {
        if (!ctrl.signal.aborted) setLoading(false);
      });
    return () => ctrl.abort();
  }, [attempt]);

  const retry = useCallback(() => setAttempt((a) => a + 1), []);
  return { sections, loading, failed, retry };
}
