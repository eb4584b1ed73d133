import { ShoppingCartOutlined, WhatsAppOutlined } from '@ant-design/icons';
import type { CatalogueItem } from '../../api/types';
import { BRAND } from '../../brand';
import { NumberGrid, NumberLegend } from '../board/NumberGrid';
import { PlainButton } from '../plain/Button';
import { SkeletonBlock, SkeletonText } from '../plain/Skeleton';
import { availability, coverSrc, unitPriceCents } from './format';
import { Availability, PrizeAndPrice, soldOf } from './ProductOffer';
import './product-card.css';

export const DEFAULT_DESCRIPTION = 'Compre o e-book e escolha 1 número entre os 100.';

export interface ProductCardProps {
  product: CatalogueItem;
  onBuy(): void;
  /** The purchase of this product is being prepared (button shows a spinner). */
  buying?: boolean;
}

/**
 * Home product card (storefront spec §2 Home): cover, subtitle, title, prize, ticket price, buy
 * button, description, availability bar, the read-only 10x10 board with its legend, group link.
 * The buy button follows the price (in the reading order too) so that a phone's first screen
 * shows it.
 */
export function ProductCard({ product, onBuy, buying }: ProductCardProps) {
  const draw = product.draw;
  const cover = coverSrc(product.cover_url);
  const unit = unitPriceCents(product, draw);
  const prize = draw?.prize_cents ?? product.prize_cents;
  const { total, available } = availability(product, draw);
  const titleId = `produto-${product.id}-titulo`;

  return (
    <article className="product-card" aria-labelledby={titleId}>
      <div className="product-card-head">
        <div className="product-cover product-card-cover">
          {cover ? (
            <img src={cover} alt={`Capa do e-book ${product.title}`} loading="lazy" width={600} height={800} />
          ) : (
            <span className="product-cover-empty product-card-cover-empty" aria-hidden>
              {product.title}
            </span>
          )}
        </div>
        <div className="product-card-intro">
          {product.subtitle && <p className="product-card-subtitle">{product.subtitle}</p>}
          <h3 id={titleId} className="product-card-title">
            {product.title || 'E-book'}
          </h3>
          <PrizeAndPrice prizeCents={prize} unitCents={unit} classPrefix="product-card" />
        </div>
      </div>

      {/* Right under the price: on a phone the first screen reaches it (issue 26). */}
      <PlainButton
        type="primary"
        size="large"
        block
        icon={<ShoppingCartOutlined />}
        onClick={onBuy}
        loading={buying}
        className="product-card-buy"
      >
        Comprar e-book
      </PlainButton>

      <p className="product-card-description">{product.description?.trim() || DEFAULT_DESCRIPTION}</p>

      <Availability
        available={available}
        total={total}
        sold={product.numbers?.length ? soldOf(product.numbers) : undefined}
        size="small"
        className="product-card-availability"
      />

      <div className="product-card-board">
        <NumberGrid numbers={product.numbers ?? []} totalNumbers={total} compact ariaLabel={`Tabela de números: ${product.title}`} />
        <NumberLegend />
      </div>

      <a className="product-card-group" href={BRAND.communityGroupUrl} target="_blank" rel="noopener noreferrer">
        <WhatsAppOutlined aria-hidden /> Entrar no grupo da comunidade
      </a>
    </article>
  );
}

/** Placeholder with the card's shape, shown while the products load. */
export function ProductCardSkeleton() {
  return (
    <div className="product-card product-card--skeleton" aria-hidden>
      <div className="product-card-head">
        <SkeletonBlock className="product-card-cover-skeleton" />
        <div className="product-card-intro-skeleton">
          <SkeletonText titleWidth="80%" rows={3} widths={['60%', '70%', '50%']} />
        </div>
      </div>
      <SkeletonBlock className="skeleton-button skeleton-button-lg" style={{ width: '100%' }} />
      <SkeletonText title={false} rows={2} />
      <SkeletonBlock className="product-card-board-skeleton" />
    </div>
  );
}
