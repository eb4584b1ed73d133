import { useCallback, useEffect, useState } from 'react';
import { api } from '../../api/client';
import type { BoardNumber, Product } from '../../api/types';

export type HomeProduct = Product & { numbers?: BoardNumber[] };

/** Storefront spec §7 and §9: the Lotomania products with an open draw, at most 12, with their boards. */
export const HOME_PRODUCTS_QUERY = { category: 'lotomania', status: 'open', limit: 12, include: 'numbers' } as const;

/** `items[]` or a bare array (spec §7); anything else is an empty list. */
function itemsOf(body: unknown): HomeProduct[] {
  const list = Array.isArray(body) ? body : body && typeof body === 'object' ? (body as { items?: unknown }).items : null;
  return Array.isArray(list) ? (list.filter((p) => p && typeof p === 'object' && typeof p.id === 'number') as HomeProduct[]) : [];
}

/**
 * The home page's products. A failed load ends as an empty list (spec §8); `failed` lets the page
 * offer a retry.
 */
export function useHomeProducts() {
  const [products, setProducts] = useState<HomeProduct[]>([]);
  const [loading, setLoading] = useState(true);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const ctrl = new AbortController();
    setLoading(true);
    setFailed(false);
    api
      .get('/api/infoproducts', { query: HOME_PRODUCTS_QUERY, signal: ctrl.signal })
      .then((body) => setProducts(itemsOf(body).slice(0, HOME_PRODUCTS_QUERY.limit)))
      .catch((err) => {
        if (ctrl.signal.aborted) return;
        console.warn('[home] produtos indisponíveis:', err);
        setProducts([]);
        setFailed(true);
      })
      .finally(() => {
        if (!ctrl.signal.aborted) setLoading(false);
      });
    return () => ctrl.abort();
  }, [attempt]);

  const retry = useCallback(() => setAttempt((a) => a + 1), []);
  return { products, loading, failed, retry };
}
