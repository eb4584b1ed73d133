import { SkeletonBlock, SkeletonText } from '../plain/Skeleton';
import './number-grid.css';

/** 100 placeholder cells in the board's shape (10 × 10), while the board loads. */
export function BoardSkeleton({ label = 'Carregando a tabela de números' }: { label?: string }) {
  return (
    <div className="number-grid number-grid--interactive number-grid-skeleton" role="status" aria-label={label}>
      {Array.from({ length: 10 }, (_, r) => (
        <div className="number-row" key={r} aria-hidden="true">
          {Array.from({ length: 10 }, (_, c) => (
            <span key={c} className="number-cell" />
          ))}
        </div>
      ))}
    </div>
  );
}

/**
 * What /numeros shows while its code arrives (the router's fallback for that route): the page's
 * title, a header placeholder and the board's 10 × 10 shape, not a generic grey page. Plain
 * elements, in the main chunk (it must show before the page's chunk is there).
 */
export function BoardPageSkeleton() {
  return (
    <div className="page board-page-skeleton">
      <h1 className="board-page-skeleton-title">Escolha seus números</h1>
      <SkeletonText title={false} rows={2} widths={['70%', '40%']} />
      <SkeletonBlock className="board-page-skeleton-stats" />
      <div className="board-page-skeleton-board">
        <BoardSkeleton />
      </div>
    </div>
  );
}
