import { useEffect, useRef } from 'react';
import type { Product } from '../../api/types';
import AntdScope from '../../antd/AntdScope';
import { QueryScope } from '../../query';
import { usePurchase } from './usePurchase';

export interface PurchaseFlowHandle {
  buy(product: Product, unitPriceCents: number | null): void;
}

function Flow({ returnTo, onReady, onPreparing }: PurchaseFlowProps) {
  const { buy, dialogs, preparingId } = usePurchase({ returnTo });
  // The handle stays the same; it always calls the latest buy() (which follows the session).
  const latestBuy = useRef(buy);
  useEffect(() => {
    latestBuy.current = buy;
  }, [buy]);
  useEffect(() => {
    onReady({ buy: (product, unit) => latestBuy.current(product, unit) });
  }, [onReady]);
  useEffect(() => {
    onPreparing(preparingId);
  }, [onPreparing, preparingId]);
  return <>{dialogs}</>;
}

interface PurchaseFlowProps {
  returnTo: string;
  onReady(handle: PurchaseFlowHandle): void;
  onPreparing(productId: number | null): void;
}

/** The purchase flow (usePurchase) with its own antd scope: the lazily loaded part of PurchaseLauncher. */
export default function PurchaseFlow(props: PurchaseFlowProps) {
  return (
    <QueryScope>
      <AntdScope island>
        <Flow {...props} />
      </AntdScope>
    </QueryScope>
  );
}
