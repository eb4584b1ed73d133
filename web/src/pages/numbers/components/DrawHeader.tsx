import { Availability } from '../../../components/product/ProductOffer';
import { BookOutlined } from '@ant-design/icons';
import type { Draw, DrawStatus } from '../../../api/types';
import type { BoardCounts } from '../board';
import { coverSrc } from '../../../components/product/format';
import { Money } from '../../../components/money/Money';
import { SkeletonBlock, SkeletonText } from '../../../components/plain/Skeleton';
import { Tag } from './ui';

const STATUS_TAG: Record<DrawStatus, { tone: 'green' | 'gold' | 'default'; label: string }> = {
  open: { tone: 'green', label: 'Aberto' },
  closed: { tone: 'gold', label: 'Fechado' },
  sorteado: { tone: 'default', label: 'Sorteado' },
};

export function Cover({ src, alt, className }: { src: string | null | undefined; alt: string; className: string }) {
  const url = coverSrc(src);
  return url ? (
    <img src={url} alt={alt} className={className} loading="lazy" decoding="async" />
  ) : (
    <span className={`${className} cover-fallback`} aria-hidden="true">
      <BookOutlined />
    </span>
  );
}

/** Draw title and product, prize, price of one number and how many numbers are still free. */
export function DrawHeader({ draw, counts }: { draw: Draw; counts: BoardCounts | null }) {
  const title = draw.product_title || draw.title;
  const status = STATUS_TAG[draw.status];
  const total = counts?.total ?? draw.total_numbers;
  const available = counts
    ? counts.available
    : Math.max(0, draw.total_numbers - draw.counts.reserved - draw.counts.sold - draw.counts.taken);
  const sold = counts ? counts.unavailable : draw.counts.sold + draw.counts.taken;
  return (
    <header className="numbers-header">
      <div className="numbers-title-row">
        <Cover src={draw.cover_url} alt={`Capa do e-book ${title}`} className="numbers-cover" />
        <div className="numbers-title-text">
          <div className="numbers-kicker">
            <span>Sorteio #{draw.id}</span>
            <Tag tone={status.tone}>{status.label}</Tag>
          </div>
          <h1 className="numbers-title">Escolha seus números</h1>
          <p className="numbers-product">{title}</p>
          {draw.title && draw.product_title && draw.title !== draw.product_title && (
            <p className="muted numbers-draw-title">{draw.title}</p>
          )}
        </div>
      </div>
      <dl className="numbers-stats">
        <div>
          <dt>Prêmio</dt>
          <dd className="text-amber">
            <Money cents={draw.prize_cents} />
          </dd>
        </div>
        <div>
          <dt>Por número</dt>
          <dd>
            <Money cents={draw.ticket_price_cents} />
          </dd>
        </div>
        <div>
          <dt>Disponíveis</dt>
          <dd>
            {available} <span className="muted">de {total}</span>
          </dd>
        </div>
      </dl>
      <Availability className="numbers-progress" available={available} total={total} sold={sold} reserved={counts?.reserved} />
    </header>
  );
}

export function DrawHeaderSkeleton() {
  return (
    <div className="numbers-header" aria-hidden="true">
      <div className="numbers-title-row">
        <SkeletonBlock style={{ width: 60, height: 80, flex: 'none' }} />
        <div style={{ flex: 1 }}>
          <SkeletonText titleWidth="70%" rows={2} widths={['50%', '35%']} />
        </div>
      </div>
      <SkeletonBlock style={{ height: 64, marginTop: 16 }} />
    </div>
  );
}
