import { formatBRL } from './format';
import { countOf } from '../../../../src/shared/plural';
import '../plain/plain.css';
import './product-offer.css';

/**
 * Prize and price of one number (storefront spec §2): "R$ 500,00 de prêmio" and, when the e-book
 * has a price, "R$ 10,00 / 1 número". `classPrefix` adds the layout's own classes
 * (`${classPrefix}-prize`, `${classPrefix}-price`) for sizes.
 */
export function PrizeAndPrice({
  prizeCents,
  unitCents,
  classPrefix,
}: {
  prizeCents: number | null | undefined;
  unitCents: number | null;
  classPrefix: string;
}) {
  return (
    <>
      <p className={`product-prize ${classPrefix}-prize`}>
        <strong>{formatBRL(prizeCents)}</strong> de prêmio
      </p>
      {unitCents != null && (
        <p className={`product-price ${classPrefix}-price`}>
          <strong>{formatBRL(unitCents)}</strong> / 1 número
        </p>
      )}
    </>
  );
}

/** Numbers sold (or otherwise taken) on a board: what the progress bars measure. */
export function soldOf(numbers: ReadonlyArray<{ status: string }> | null | undefined): number {
  return (numbers ?? []).filter((c) => c.status === 'sold' || c.status === 'taken').length;
}

/**
 * "98 de 100 números disponíveis" and a bar. Every progress bar of the store means the same: the
 * share of the numbers already sold, and says so ("2% vendidos"). `sold` defaults to what is not
 * available (a board without its cells); `className` adds the layout's own class.
 */
export function Availability({
  available,
  total,
  sold,
  reserved,
  className,
  size,
}: {
  available: number;
  total: number;
  sold?: number;
  reserved?: number;
  className: string;
  size?: 'small' | 'default';
}) {
  const soldN = Math.max(0, Math.min(total, sold ?? total - available));
  const percent = total > 0 ? Math.round((soldN / total) * 100) : 0;
  return (
    <div className={`product-availability ${className}`}>
      <div
        className={`progress-line${size === 'small' ? ' progress-line--small' : ''}`}
        role="progressbar"
        aria-valuenow={percent}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuetext={`${percent}% vendidos`}
        aria-label={`Números vendidos: ${soldN} de ${total}`}
      >
        <span style={{ width: `${percent}%` }} />
      </div>
      <span>
        <strong>{available}</strong> de {total} números disponíveis
        <span className="availability-sold">
          {' · '}
          {percent}% vendidos
        </span>
        {reserved != null && reserved > 0 && ` · ${countOf(reserved, 'reservado', 'reservados')}`}
      </span>
    </div>
  );
}
