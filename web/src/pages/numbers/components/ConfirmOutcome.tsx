import type { RefObject } from 'react';
import { formatNumbers } from '../board';
import type { Outcome } from '../hooks/useConfirmNumbers';
import { Callout } from './ui';

/** The answer of the last CONFIRMAR above the board; `focusRef` takes the focus when it appears. */
export function ConfirmOutcome({
  outcome,
  focusRef,
  onClose,
}: {
  outcome: Outcome;
  focusRef: RefObject<HTMLDivElement | null>;
  onClose(): void;
}) {
  return (
    <div ref={focusRef} tabIndex={-1} className="numbers-result">
      <Callout tone="success" title={outcome.text} onClose={onClose}>
        {outcome.numbers.length === 1
          ? `Número ${formatNumbers(outcome.numbers)}: já está na sua área do cliente.`
          : `Números ${formatNumbers(outcome.numbers)}: já estão na sua área do cliente.`}
      </Callout>
    </div>
  );
}
