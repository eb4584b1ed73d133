import { api } from '../../api/client';
import type { CatalogueSection } from '../../api/types';
import { useRetryableList } from '../../components/useRetryableList';
import { seedData, useSeedRead } from '../../ssr/seeds';

/** A list of sections; anything else (or a failure) is an empty list (storefront spec §4, §7, §8). */
function sectionsOf(body: unknown): CatalogueSection[] {
  if (!Array.isArray(body)) return [];
  return body
    .filter((s): s is CatalogueSection => !!s && typeof s === 'object')
    .map((s) => ({ ...s, items: Array.isArray(s.items) ? s.items.filter((i) => i && typeof i === 'object' && i.product) : [] }));
}

const loadSections = (signal: AbortSignal) => api.get('/api/infoproducts/sections', { query: { onlyOpen: 1 }, signal }).then(sectionsOf);

/** GET /api/infoproducts/sections?onlyOpen=1: loading, then loaded. */
export function useCatalogue() {
  const seed = useSeedRead('catalogue-sections');
  const {
    items: sections,
    loading,
    failed,
    retry,
  } = useRetryableList(loadSections, '[catálogo] seções indisponíveis:', () => {
    const body = seedData(seed);
    return body === undefined ? undefined : sectionsOf(body);
  });
  return { sections, loading, failed, retry };
}
