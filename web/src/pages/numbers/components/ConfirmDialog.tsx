import type { ReactNode } from 'react';
import { PlainButton } from '../../../components/plain/Button';
import { pad2 } from '../board';
import { Dialog } from './ui';

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
}) {
  if (!open) return null;
  const sorted = [...numbers].sort((a, b) => a - b);
  return (
    <Dialog
      title="Confirmar números usando vouchers"
      onCancel={submitting ? undefined : onBack}
      returnFocus={returnFocus}
      className="numbers-confirm"
      footer={
        <div className="numbers-confirm-actions">
          <PlainButton onClick={onBack} disabled={submitting}>
            VOLTAR
          </PlainButton>
          <PlainButton onClick={onClear} disabled={submitting}>
            LIMPAR SELEÇÃO
          </PlainButton>
          <PlainButton type="primary" onClick={onConfirm} loading={submitting}>
            CONFIRMAR
          </PlainButton>
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
    </Dialog>
  );
}

/** The page's 'Aviso' (limits, numbers taken meanwhile, failures of CONFIRMAR) with OK. */
export function NoticeDialog({ content, onClose }: { content: ReactNode; onClose(): void }) {
  return (
    <Dialog
      title="Aviso"
      onCancel={onClose}
      className="numbers-notice"
      footer={
        <PlainButton type="primary" onClick={onClose}>
          OK
        </PlainButton>
      }
    >
      <p>{content}</p>
    </Dialog>
  );
}
