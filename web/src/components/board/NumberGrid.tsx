import type { BoardNumber, NumberStatus } from '../../api/types';
import { moveFocus, BOARD_COLUMNS } from './keys';
import { pad2 } from './labels';
import { useRovingGrid } from './useRovingGrid';
import './number-grid.css';

export { moveFocus, BOARD_COLUMNS, pad2 };

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
  /** 'Só livres': show only the numbers that can be picked (and the picked ones), in board order. */
  onlyAvailable?: boolean;
  /** Compact cells (home cards). */
  compact?: boolean;
  ariaLabel?: string;
}

/**
 * The 10-column board (labels 00-99) as an ARIA grid: rows of ten gridcells. Read-only on product
 * cards and the draw detail (aria-readonly, no tab stop); interactive on /numeros and in the
 * console, where the whole board is one Tab stop (roving tabindex): arrows move, Home/End go to
 * the row's ends, Space or Enter toggles; a cell that cannot be picked stays reachable
 * (aria-disabled) so the keys never skip over it; aria-selected says what is picked.
 */
export function NumberGrid({
  numbers,
  totalNumbers = 100,
  selected = [],
  onToggle,
  mine = [],
  winner = null,
  onlyAvailable = false,
  compact,
  ariaLabel = 'Tabela de números',
}: NumberGridProps) {
  const byN = new Map(numbers.map((c) => [c.n, c]));
  const all = Array.from({ length: totalNumbers }, (_, n) => byN.get(n) ?? { n, status: 'available' as const, initials: null });
  const cells = onlyAvailable ? all.filter((c) => cellState(c.status) === 'available' || selected.includes(c.n)) : all;
  const grid = `number-grid${compact ? ' number-grid--compact' : ''}${onToggle ? ' number-grid--interactive' : ''}`;
  const { root, cellProps } = useRovingGrid<HTMLDivElement>(cells.length);

  const rows: Array<typeof cells> = [];
  for (let i = 0; i < cells.length; i += BOARD_COLUMNS) rows.push(cells.slice(i, i + BOARD_COLUMNS));

  return (
    <div
      ref={root}
      className={grid}
      role="grid"
      aria-label={ariaLabel}
      aria-readonly={onToggle ? undefined : true}
      aria-multiselectable={onToggle ? true : undefined}
    >
      {rows.map((row, r) => (
        <div role="row" className="number-row" key={r}>
          {row.map((c, i) => {
            const state = cellState(c.status);
            const isSelected = selected.includes(c.n);
            const isMine = state === 'unavailable' && mine.includes(c.n);
            const isWinner = winner === c.n;
            const marks = [isMine ? MINE_LABEL : null, isWinner ? 'vencedor' : null].filter(Boolean).join(', ');
            const label = `${pad2(c.n)}: ${isSelected ? 'selecionado' : marks || STATE_LABEL[state]}`;
            const cls = `number-cell number-cell--${state}${isSelected ? ' number-cell--selected' : ''}${isMine ? ' number-cell--mine' : ''}${
              isWinner ? ' number-cell--winner' : ''
            }`;
            const content = isSelected ? (
              <>
                {pad2(c.n)}
                <span className="number-cell__check" aria-hidden="true">
                  ✓
                </span>
              </>
            ) : isMine ? (
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
            const pickable = state === 'available' || isSelected;
            return (
              <button
                key={c.n}
                type="button"
                role="gridcell"
                className={cls}
                aria-label={label}
                aria-selected={isSelected}
                aria-disabled={pickable ? undefined : true}
                data-n={c.n}
                {...cellProps(r * BOARD_COLUMNS + i)}
                onClick={() => {
                  if (pickable) onToggle(c.n);
                }}
                title={isMine && c.initials ? `${label} (${c.initials})` : undefined}
              >
                {content}
              </button>
            );
          })}
        </div>
      ))}
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
          <span className="number-cell number-cell--available number-cell--selected number-legend__swatch" aria-hidden="true">
            <span className="number-cell__check">✓</span>
          </span>
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
