import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import type { Product } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { hasStoredPendingBuy, isPendingBuy } from './pendingBuy';
import type { PurchaseFlowHandle } from './PurchaseFlow';

// The purchase flow (its dialogs, antd, the PIX QR code) is a chunk of its own, loaded on the first
// tap of a buy button, or at once when a purchase interrupted by the sign-in waits for this page.
const PurchaseFlow = lazy(() => import('./PurchaseFlow'));

/**
 * The purchase flow of usePurchase.tsx behind a lazy boundary, with the same answer:
 * `buy(product, unitPriceCents)`, the dialogs to render, and the id of the product whose purchase
 * is being prepared (its button shows a spinner, also while the flow's code loads).
 */
export function usePurchaseLauncher({ returnTo }: { returnTo: string }): {
  buy(product: Product, unitPriceCents: number | null): void;
  dialogs: ReactNode;
  preparingId: number | null;
} {
  const { isAuthenticated, loading: authLoading } = useAuth();
  const location = useLocation();
  const [wanted, setWanted] = useState(false);
  const [loadingId, setLoadingId] = useState<number | null>(null);
  const [flowPreparingId, setFlowPreparingId] = useState<number | null>(null);
  const flow = useRef<PurchaseFlowHandle | null>(null);
  const queued = useRef<[Product, number | null] | null>(null);

  // A purchase to resume after the sign-in (navigation state from /login, or sessionStorage).
  const resumable =
    !authLoading &&
    isAuthenticated &&
    (isPendingBuy((location.state as Record<string, unknown> | null)?.pendingBuy) || hasStoredPendingBuy(location.pathname));
  useEffect(() => {
    if (resumable) setWanted(true);
  }, [resumable]);

  const buy = useCallback((product: Product, unit: number | null) => {
    if (flow.current) {
      flow.current.buy(product, unit);
      return;
    }
    queued.current = [product, unit];
    setLoadingId(product.id);
    setWanted(true);
  }, []);

  const onReady = useCallback((handle: PurchaseFlowHandle) => {
    flow.current = handle;
    setLoadingId(null);
    const q = queued.current;
    queued.current = null;
    if (q) handle.buy(...q);
  }, []);

  const dialogs = wanted ? (
    <Suspense fallback={null}>
      <PurchaseFlow returnTo={returnTo} onReady={onReady} onPreparing={setFlowPreparingId} />
    </Suspense>
  ) : null;

  return { buy, dialogs, preparingId: loadingId ?? flowPreparingId };
}
