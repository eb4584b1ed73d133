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
/** A sold number of the signed-in customer (the draw detail legend says the same). */
export const MINE_LABEL = 'Seu número';

export interface NumberGridProps {
  /** Board cells from the API; missing numbers count as available. */
  numbers: BoardNumber[];
  totalNumbers?: number;
  /** Interactive mode: selected numbers and a toggle handler. Without onToggle the grid is read-only. */
  selected?: number[];
  onToggle?: (n: number) => void;
  /** The signed-in customer's own (sold) numbers: marked 'Seu número', with the owner's initials. */
  mine?: readonly number[];
  /** The winning number (draw detail, /me/draw/{id}). */
  winner?: number | null;
  /** Compact cells (home cards). */
  compact?: boolean;
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
  mine = [],
  winner = null,
  compact,
  ariaLabel = 'Tabela de números',
}: NumberGridProps) {
  const byN = new Map(numbers.map((c) => [c.n, c]));
  const cells = Array.from({ length: totalNumbers }, (_, n) => byN.get(n) ?? { n, status: 'available' as const, initials: null });
  const grid = `number-grid${compact ? ' number-grid--compact' : ''}${onToggle ? ' number-grid--interactive' : ''}`;
  return (
    <div className={grid} role="grid" aria-label={ariaLabel}>
      {cells.map((c) => {
        const state = cellState(c.status);
        const isSelected = selected.includes(c.n);
        const isMine = state === 'unavailable' && mine.includes(c.n);
        const isWinner = winner === c.n;
        const marks = [isMine ? MINE_LABEL : null, isWinner ? 'vencedor' : null].filter(Boolean).join(', ');
        const label = `${pad2(c.n)}: ${isSelected ? 'selecionado' : marks || STATE_LABEL[state]}`;
        const cls = `number-cell number-cell--${state}${isSelected ? ' number-cell--selected' : ''}${isMine ? ' number-cell--mine' : ''}${
          isWinner ? ' number-cell--winner' : ''
        }`;
        const content = isMine ? (
          <>
            <span className="number-cell__n">{pad2(c.n)}</span>
            {c.initials && (
              <span className="number-cell__owner" aria-hidden="true">
                {c.initials}
              </span>
            )}
          </>
        ) : (
          pad2(c.n)
        );
        if (!onToggle) {
          return (
            <span key={c.n} role="gridcell" className={cls} aria-label={label} title={c.initials ? `${label} (${c.initials})` : label}>
              {content}
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
            title={isMine && c.initials ? `${label} (${c.initials})` : undefined}
          >
            {content}
          </button>
        );
      })}
    </div>
  );
}

/** Legend Disponível / Reservado / Indisponível (and 'Selecionado', 'Seu número' on the interactive board). */
export function NumberLegend({ withSelected = false, withMine = false }: { withSelected?: boolean; withMine?: boolean }) {
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
      {withMine && (
        <li>
          <span className="number-cell number-cell--unavailable number-cell--mine number-legend__swatch" aria-hidden="true" />
          {MINE_LABEL}
        </li>
      )}
    </ul>
  );
}
