import { Modal, Progress } from 'antd';
import { CheckCircleFilled, LoadingOutlined } from '@ant-design/icons';
import './purchase.css';

/** Storefront spec §4 step 5, in this order. */
export const APPROVED_MESSAGES = [
  'Pagamento aprovado! Preparando a sua tabela…',
  'Confirmando sua compra e liberando seus números…',
  'Garantindo o sorteio e carregando a tabela de números…',
  'Tudo pronto! Abrindo a tela para você escolher o número…',
] as const;

export interface ApprovedDialogProps {
  open: boolean;
  /** Index of the current message (0-3). */
  step: number;
  percent: number;
}

/** Non-closable progress dialog shown between the approval and /numeros. */
export function ApprovedDialog({ open, step, percent }: ApprovedDialogProps) {
  return (
    <Modal
      open={open}
      title="Pagamento aprovado"
      closable={false}
      maskClosable={false}
      keyboard={false}
      footer={null}
      centered
      width={420}
      className="purchase-modal"
    >
      <Progress percent={percent} status={percent >= 100 ? 'success' : 'active'} strokeColor="var(--green-bright)" aria-label="Progresso" />
      {/* The messages appear one after the other; the last one is the current step. */}
      <ol className="approved-steps" aria-live="polite">
        {APPROVED_MESSAGES.slice(0, Math.min(step, APPROVED_MESSAGES.length - 1) + 1).map((m, i) => {
          const done = i < step || percent >= 100;
          return (
            <li key={m} className={`approved-step approved-step--${done ? 'done' : 'current'}`}>
              <span className="approved-step-icon" aria-hidden>
                {done ? <CheckCircleFilled /> : <LoadingOutlined />}
              </span>
              {m}
            </li>
          );
        })}
      </ol>
    </Modal>
  );
}
