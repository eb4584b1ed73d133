import { useRovingGrid } from '../../components/board/useRovingGrid';
import { cellStateOf, pad2, type CellState } from './autopay';

const LABEL: Record<CellState, string> = {
  free: 'Livre',
  mine: 'Seu número cativo',
  taken: 'Cativo de outro cliente',
};

/**
 * The 00-99 grid of the autopay dialog: free numbers can be picked, the ones picked are marked
 * as the customer's captive numbers (aria-selected), and the captive numbers of other customers
 * cannot be picked (aria-disabled, still reachable by the keys). An ARIA grid of ten rows, one Tab
 * stop (roving tabindex: arrows, Home/End move; Space/Enter toggle).
 */
export function CaptiveGrid({
  picks,
  taken,
  onToggle,
  disabled = false,
}: {
  picks: readonly number[];
  taken: ReadonlySet<number>;
  onToggle: (n: number) => void;
  disabled?: boolean;
}) {
  const { root, cellProps } = useRovingGrid<HTMLDivElement>(100);
  return (
    <div ref={root} className="captive-grid" role="grid" aria-label="Números cativos" aria-multiselectable>
      {Array.from({ length: 10 }, (_, r) => (
        <div role="row" className="captive-row" key={r}>
          {Array.from({ length: 10 }, (_, c) => {
            const n = r * 10 + c;
            const state = cellStateOf(n, picks, taken);
            const off = disabled || state === 'taken';
            return (
              <button
                key={n}
                type="button"
                role="gridcell"
                className={`captive-cell captive-cell--${state}`}
                aria-label={`${pad2(n)}: ${LABEL[state]}`}
                aria-selected={state === 'mine'}
                aria-disabled={off || undefined}
                {...cellProps(n)}
                onClick={() => {
                  if (!off) onToggle(n);
                }}
              >
                {pad2(n)}
              </button>
            );
          })}
        </div>
      ))}
    </div>
  );
}

export function CaptiveLegend() {
  return (
    <ul className="captive-legend" aria-label="Legenda">
      {(['free', 'mine', 'taken'] as const).map((s) => (
        <li key={s}>
          <span className={`captive-cell captive-cell--${s} captive-legend__swatch`} aria-hidden="true" />
          {LABEL[s]}
        </li>
      ))}
    </ul>
  );
}
