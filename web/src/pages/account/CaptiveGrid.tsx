import { cellStateOf, pad2, type CellState } from './autopay';

const LABEL: Record<CellState, string> = {
  free: 'Livre',
  mine: 'Seu número cativo',
  taken: 'Cativo de outro cliente',
};

/**
 * The 00-99 grid of the autopay dialog: free numbers can be picked, the ones picked are marked
 * as the customer's captive numbers, and the captive numbers of other customers are disabled.
 * Phones: the grid spans the screen (cells of 36 px and more on a 360 px phone).
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
  return (
    <div className="captive-grid" role="grid" aria-label="Números cativos">
      {Array.from({ length: 100 }, (_, n) => {
        const state = cellStateOf(n, picks, taken);
        return (
          <button
            key={n}
            type="button"
            role="gridcell"
            className={`captive-cell captive-cell--${state}`}
            aria-label={`${pad2(n)}: ${LABEL[state]}`}
            aria-pressed={state === 'mine'}
            disabled={disabled || state === 'taken'}
            onClick={() => onToggle(n)}
          >
            {pad2(n)}
          </button>
        );
      })}
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
