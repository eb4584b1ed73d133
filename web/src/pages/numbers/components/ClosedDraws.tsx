import type { Draw } from '../../../api/types';
import { SkeletonBlock, SkeletonText } from '../../../components/plain/Skeleton';
import { Cover } from './DrawHeader';
import { Tag } from './ui';

/** 'Sorteios fechados (aguardando sorteio)': sold-out boards waiting for the Lotomania result (storefront spec §2). */
export function ClosedDraws({ items, loading }: { items: Draw[]; loading: boolean }) {
  return (
    <section className="closed-draws" aria-labelledby="closed-draws-title">
      <h2 id="closed-draws-title" className="closed-draws-title">
        Sorteios fechados (aguardando sorteio)
      </h2>
      {loading ? (
        <ul className="closed-draws-list" aria-hidden="true">
          {[0, 1, 2].map((i) => (
            <li key={i} className="closed-draw-card">
              <SkeletonBlock style={{ width: '100%', height: 140, borderRadius: 0 }} />
              <div className="closed-draw-body">
                <SkeletonText title={false} rows={2} widths={['90%', '50%']} />
              </div>
            </li>
          ))}
        </ul>
      ) : items.length === 0 ? (
        <p className="muted">Nenhuma tabela esgotada aguardando o concurso da Lotomania agora.</p>
      ) : (
        <ul className="closed-draws-list">
          {items.map((d) => {
            const title = d.title || d.product_title || `Sorteio #${d.id}`;
            return (
              <li key={d.id} className="closed-draw-card">
                <Cover src={d.cover_url} alt={`Capa do e-book ${title}`} className="closed-draw-cover" />
                <div className="closed-draw-body">
                  <h3 className="closed-draw-name">{title}</h3>
                  <div className="closed-draw-meta">
                    <Tag tone="gold">Fechado</Tag>
                    <span className="muted">#{d.id}</span>
                  </div>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
