import { Button, Skeleton } from 'antd';
import { ShoppingCartOutlined } from '@ant-design/icons';
import type { Draw, Product } from '../../api/types';
import { LinkButton } from '../../components/LinkButton';
import { availability, coverSrc, formatBRL, unitPriceCents } from '../../components/product/format';

export interface CatalogueCardProps {
  product: Product;
  draw: Draw | null;
  categoryName: string;
}

/**
 * Catalogue card (storefront spec §2 Catalogue): cover or placeholder, category in capitals,
 * title, subtitle, prize, ticket (the draw's price first), cotas and 'COMPRAR E-BOOK'.
 */
export function CatalogueCard({ product, draw, categoryName }: CatalogueCardProps) {
  const cover = coverSrc(product.cover_url);
  const title = product.title?.trim() || 'E-book';
  const ticket = unitPriceCents(product, draw);
  const prize = draw?.prize_cents ?? product.prize_cents ?? product.default_prize_cents;
  const { total } = availability(product, draw);
  const sku = product.sku?.trim();

  return (
    <article className="catalogue-card">
      <div className="catalogue-card-cover">
        {cover ? (
          <img src={cover} alt={`Capa do e-book ${title}`} loading="lazy" width={600} height={800} />
        ) : (
          <span className="catalogue-card-cover-empty">Espaço para a arte do e-book</span>
        )}
      </div>
      <div className="catalogue-card-body">
        <p className="catalogue-card-category">{categoryName.toLocaleUpperCase('pt-BR')}</p>
        <h3 className="catalogue-card-title">{title}</h3>
        {product.subtitle && <p className="catalogue-card-subtitle">{product.subtitle}</p>}
        <dl className="catalogue-card-facts">
          <div>
            <dt>Prêmio</dt>
            <dd className="text-amber">{formatBRL(prize)}</dd>
          </div>
          <div>
            <dt>Ticket</dt>
            <dd>{ticket != null ? formatBRL(ticket) : '—'}</dd>
          </div>
          <div>
            <dt>Cotas</dt>
            <dd>{total}</dd>
          </div>
        </dl>
        {sku ? (
          <LinkButton
            type="primary"
            size="large"
            block
            icon={<ShoppingCartOutlined />}
            className="catalogue-card-buy"
            to={`/comprar/${encodeURIComponent(sku)}`}
          >
            COMPRAR E-BOOK
          </LinkButton>
        ) : (
          <Button type="primary" size="large" block icon={<ShoppingCartOutlined />} className="catalogue-card-buy" disabled>
            COMPRAR E-BOOK
          </Button>
        )}
      </div>
    </article>
  );
}

export function CatalogueCardSkeleton() {
  return (
    <div className="catalogue-card" aria-hidden>
      <Skeleton.Node active className="catalogue-card-cover-skeleton" />
      <div className="catalogue-card-body">
        <Skeleton active title={{ width: '70%' }} paragraph={{ rows: 3 }} />
        <Skeleton.Button active block size="large" />
      </div>
    </div>
  );
}
