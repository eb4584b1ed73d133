import { formatBRL } from './format';
import '../plain/plain.css';
import './product-offer.css';

/**
 * Prize and price of one number (storefront spec §2): "R$ 500,00 de prêmio" and, when the e-book
 * has a price, "R$ 10,00 / 1 número". `classPrefix` adds the layout's own classes
 * (`${classPrefix}-prize`, `${classPrefix}-price`) for sizes.
 */
export function PrizeAndPrice({ prizeCents, unitCents, classPrefix }: { prizeCents: number | null | undefined; unitCents: number | null; classPrefix: string }) {
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

/** "98 de 100 números disponíveis" with its bar. `className` adds the layout's own class. */
export function Availability({ available, total, className, size }: { available: number; total: number; className: string; size?: 'small' | 'default' }) {
  const percent = total > 0 ? Math.round((available / total) * 100) : 0;
  return (
    <div className={`product-availability ${className}`}>
      <div
        className={`progress-line${size === 'small' ? ' progress-line--small' : ''}`}
        role="progressbar"
        aria-valuenow={percent}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-label={`${available} de ${total} números disponíveis`}
      >
        <span style={{ width: `${percent}%` }} />
      </div>
      <span>
        <strong>{available}</strong> de {total} números disponíveis
      </span>
    </div>
  );
}
