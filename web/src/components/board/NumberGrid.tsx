import type { BoardNumber, NumberStatus } from '../../api/types';
import './number-grid.css';

export const pad2 = (n: number) => String(n).padStart(2, '0');

/** Sold and taken are both shown as unavailable (storefront spec §4). */
export function cellState(status: NumberStatus | undefined): 'available' | 'reserved' | 'unavailable' {
  if (status === 'reserved') return 'reserved';
  if (status === 'sold' || status === 'taken') return 'unavailable';
  return 'available';
}

const STATE_LABEL = { available: 'Disponível', reserved: 'Reservado', unavailable: 'Indisponível' } as const;

export interface NumberGridProps {
  /** Board cells from the API; missing numbers count as available. */
  numbers: BoardNumber[];
  totalNumbers?: number;
  /** Interactive mode: selected numbers and a toggle handler. Without onToggle the grid is read-only. */
  selected?: number[];
  onToggle?: (n: number) => void;
  /** Compact cells (home cards). */
  compact?: boolean;
  /** Read-only highlights of the draw detail (/me/draw/{id}): the viewer's numbers and the winning one. */
  mine?: number[];
  winner?: number | null;
  ariaLabel?: string;
}

/**
 * The 10-column board (labels 00-99). Read-only on product cards; interactive on /numeros,
 * where only available cells can be picked.
 */
export function NumberGrid({
  numbers,
  totalNumbers = 100,
  selected = [],
  onToggle,
  compact,
  mine = [],
  winner = null,
  ariaLabel = 'Tabela de números',
}: NumberGridProps) {
  const byN = new Map(numbers.map((c) => [c.n, c]));
  const cells = Array.from({ length: totalNumbers }, (_, n) => byN.get(n) ?? { n, status: 'available' as const, initials: null });
  return (
    <div className={`number-grid${compact ? ' number-grid--compact' : ''}`} role="grid" aria-label={ariaLabel}>
      {cells.map((c) => {
        const state = cellState(c.status);
        const isSelected = selected.includes(c.n);
        const isMine = mine.includes(c.n);
        const isWinner = winner === c.n;
        const marks = [isMine ? 'seu número' : null, isWinner ? 'vencedor' : null].filter(Boolean).join(', ');
        const label = `${pad2(c.n)}: ${isSelected ? 'selecionado' : marks ? `${marks} (${STATE_LABEL[state]})` : STATE_LABEL[state]}`;
        const cls = `number-cell number-cell--${state}${isSelected ? ' number-cell--selected' : ''}${isMine ? ' number-cell--mine' : ''}${
          isWinner ? ' number-cell--winner' : ''
        }`;
        if (!onToggle) {
          return (
            <span key={c.n} role="gridcell" className={cls} aria-label={label} title={c.initials ? `${label} (${c.initials})` : label}>
              {pad2(c.n)}
            </span>
          );
        }
        return (
          <button
            key={c.n}
            type="button"
            role="gridcell"
            className={cls}
            aria-label={label}
            aria-pressed={isSelected}
            disabled={state !== 'available' && !isSelected}
            onClick={() => onToggle(c.n)}
          >
            {pad2(c.n)}
          </button>
        );
      })}
    </div>
  );
}

/** Legend Disponível / Reservado / Indisponível (and 'Selecionado' on the interactive board). */
export function NumberLegend({ withSelected = false }: { withSelected?: boolean }) {
  return (
    <ul className="number-legend" aria-label="Legenda">
      {(['available', 'reserved', 'unavailable'] as const).map((s) => (
        <li key={s}>
          <span className={`number-cell number-cell--${s} number-legend__swatch`} aria-hidden="true" />
          {STATE_LABEL[s]}
        </li>
      ))}
      {withSelected && (
        <li>
          <span className="number-cell number-cell--available number-cell--selected number-legend__swatch" aria-hidden="true" />
          Selecionado
        </li>
      )}
    </ul>
  );
}
