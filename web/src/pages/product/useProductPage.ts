import { useCallback, useEffect, useState } from 'react';
import { api, ApiError, errorMessage } from '../../api/client';
import type { BoardNumber, Draw, OpenDrawAnswer, Product } from '../../api/types';
import { unitPriceCents } from '../../components/product/format';

export type ProductPageState =
  | { kind: 'loading' }
  | { kind: 'not_found' }
  | { kind: 'error'; message: string }
  | { kind: 'ready'; product: Product; draw: Draw | null; numbers: BoardNumber[]; unitCents: number | null };

/** A product, its open draw (none: a 'pending' placeholder) and the draw's board. */
export function useProductPage(sku: string) {
  const [state, setState] = useState<ProductPageState>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const ctrl = new AbortController();
    setState({ kind: 'loading' });
    api
      .get<OpenDrawAnswer>(`/api/infoproducts/${encodeURIComponent(sku)}/open-draw`, { query: { include: 'numbers' }, signal: ctrl.signal })
      .then((body) => {
        const draw = body.draw && body.draw.status !== 'pending' && body.draw.id != null ? (body.draw as Draw) : null;
        // The product's own `draw` is the open one; keep them consistent for the purchase flow.
        setState({
          kind: 'ready',
          product: { ...body.product, draw },
          draw,
          numbers: Array.isArray(body.numbers) ? body.numbers : [],
          // The pending placeholder also carries the price a new draw will have.
          unitCents: unitPriceCents(body.product, body.draw),
        });
      })
      .catch((err) => {
        if (ctrl.signal.aborted) return;
        // 404: no such e-book; 400: not even a valid SKU.
        if (err instanceof ApiError && (err.status === 404 || err.status === 400)) setState({ kind: 'not_found' });
        else setState({ kind: 'error', message: errorMessage(err, 'Não foi possível carregar este e-book agora.') });
      });
    return () => ctrl.abort();
  }, [sku, attempt]);

  const retry = useCallback(() => setAttempt((a) => a + 1), []);
  return { state, retry };
}
