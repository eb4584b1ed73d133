import type { RefObject } from 'react';
import { Alert } from 'antd';
import { formatNumbers } from '../board';
import type { Outcome } from '../hooks/useConfirmNumbers';

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
      <Alert
        type="success"
        showIcon
        title={outcome.text}
        description={
          outcome.numbers.length === 1
            ? `Número ${formatNumbers(outcome.numbers)}: já está na sua área do cliente.`
            : `Números ${formatNumbers(outcome.numbers)}: já estão na sua área do cliente.`
        }
        closable={{ closeIcon: true, 'aria-label': 'Fechar mensagem' }}
        onClose={onClose}
      />
    </div>
  );
}
