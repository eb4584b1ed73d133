import { useEffect, useId, useState } from 'react';
import { EyeInvisibleOutlined, GiftOutlined } from '@ant-design/icons';

/**
 * Above the board: 'Só livres' (hides the sold and held cells, so the last free numbers are not
 * lost among struck-through ones) and 'Surpresinha' (the visitor chooses how many, the page picks
 * that many free numbers at random into the selection, for them to confirm as usual).
 */
export function BoardTools({
  onlyFree,
  onOnlyFree,
  max,
  onSurprise,
  disabled,
}: {
  onlyFree: boolean;
  onOnlyFree(on: boolean): void;
  /** The most Surpresinha may pick now (0: nothing to pick). */
  max: number;
  onSurprise(count: number): void;
  disabled: boolean;
}) {
  const countId = useId();
  const [count, setCount] = useState(1);
  // Keep the choice within what may be picked now.
  useEffect(() => {
    setCount((c) => Math.max(1, Math.min(c, max || 1)));
  }, [max]);
  return (
    <div className="numbers-tools">
      <button type="button" className="numbers-tool numbers-only-free" aria-pressed={onlyFree} onClick={() => onOnlyFree(!onlyFree)}>
        <EyeInvisibleOutlined aria-hidden /> Só livres
      </button>
      <div className="numbers-surprise" role="group" aria-label="Surpresinha">
        <label htmlFor={countId} className="numbers-surprise-label">
          Quantos?
        </label>
        <select
          id={countId}
          className="numbers-surprise-count"
          value={count}
          disabled={disabled || max < 1}
          onChange={(e) => setCount(Number(e.target.value))}
        >
          {Array.from({ length: Math.max(1, max) }, (_, i) => i + 1).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
        <button type="button" className="numbers-tool numbers-surprise-go" disabled={disabled || max < 1} onClick={() => onSurprise(count)}>
          <GiftOutlined aria-hidden /> Surpresinha
        </button>
      </div>
    </div>
  );
}
