import { Button, Modal } from 'antd';
import { pad2 } from '../board';

/** 'Confirmar números usando vouchers' with VOLTAR / LIMPAR SELEÇÃO / CONFIRMAR (storefront spec §2). */
export function ConfirmDialog({
  open,
  drawId,
  numbers,
  submitting,
  onBack,
  onClear,
  onConfirm,
  returnFocus = true,
  afterClose,
}: {
  open: boolean;
  drawId: number | null;
  numbers: number[];
  submitting: boolean;
  onBack(): void;
  onClear(): void;
  onConfirm(): void;
  /** False after a confirmation: the focus goes to the result message, not back to the panel's CONFIRMAR. */
  returnFocus?: boolean;
  afterClose?(): void;
}) {
  const sorted = [...numbers].sort((a, b) => a - b);
  return (
    <Modal
      open={open}
      title="Confirmar números usando vouchers"
      onCancel={submitting ? undefined : onBack}
      closable={!submitting}
      mask={{ closable: !submitting }}
      keyboard={!submitting}
      destroyOnHidden
      focusTriggerAfterClose={returnFocus}
      afterClose={afterClose}
      className="numbers-confirm"
      footer={
        <div className="numbers-confirm-actions">
          <Button onClick={onBack} disabled={submitting}>
            VOLTAR
          </Button>
          <Button onClick={onClear} disabled={submitting}>
            LIMPAR SELEÇÃO
          </Button>
          <Button type="primary" onClick={onConfirm} loading={submitting}>
            CONFIRMAR
          </Button>
        </div>
      }
    >
      <p>
        Você vai usar {sorted.length} {sorted.length === 1 ? 'voucher' : 'vouchers'} para ficar com{' '}
        {sorted.length === 1 ? 'o número' : 'os números'}
        {drawId ? ` do sorteio #${drawId}` : ''}:
      </p>
      <ul className="numbers-confirm-list" aria-label="Números a confirmar">
        {sorted.map((n) => (
          <li key={n}>{pad2(n)}</li>
        ))}
      </ul>
      <p className="muted numbers-confirm-note">
        Depois de confirmados, os números ficam registrados no seu nome e não podem ser trocados.
      </p>
    </Modal>
  );
}
