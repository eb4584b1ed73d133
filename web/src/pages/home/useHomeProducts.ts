import { api } from '../../api/client';
import type { CatalogueItem } from '../../api/types';
import { useRetryableList } from '../../components/useRetryableList';
import { useLiveRefresh } from '../../live/useLiveDraws';
import { seedData, useSeedRead } from '../../ssr/seeds';

export type HomeProduct = CatalogueItem;

/** Storefront spec §7 and §9: the Lotomania products with an open draw, at most 12, with their boards. */
export const HOME_PRODUCTS_QUERY = { category: 'lotomania', status: 'open', limit: 12, include: 'numbers' } as const;

/** `items[]` or a bare array (storefront spec §7); anything else is an empty list. */
function itemsOf(body: unknown): HomeProduct[] {
  const list = Array.isArray(body) ? body : body && typeof body === 'object' ? (body as { items?: unknown }).items : null;
  return Array.isArray(list) ? (list.filter((p) => p && typeof p === 'object' && typeof p.id === 'number') as HomeProduct[]) : [];
}

const loadProducts = (signal: AbortSignal) =>
  api.get('/api/infoproducts', { query: HOME_PRODUCTS_QUERY, signal }).then((body) => itemsOf(body).slice(0, HOME_PRODUCTS_QUERY.limit));

/**
 * The home page's products. A failed load ends as an empty list (storefront spec §8); `failed` lets the page
 * offer a retry. The cards follow their draws live (one stream for all of them), or every 15 s
 * while the stream is down.
 */
export function useHomeProducts() {
  const seed = useSeedRead('home-products');
  const {
    items: products,
    loading,
    failed,
    retry,
    refresh,
  } = useRetryableList(loadProducts, '[home] produtos indisponíveis:', () => {
    const body = seedData(seed);
    return body === undefined ? undefined : itemsOf(body).slice(0, HOME_PRODUCTS_QUERY.limit);
  });
  const drawIds = products.map((p) => p.draw?.id).filter((id): id is number => typeof id === 'number');
  useLiveRefresh(drawIds, refresh);
  return { products, loading, failed, retry };
}
