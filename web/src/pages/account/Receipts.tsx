import { App, Button, Card } from 'antd';
import { CopyOutlined, FileDoneOutlined } from '@ant-design/icons';
import type { ParticipationItem } from '../../../../src/shared/api/account';
import {
  formatBrasiliaDateTime,
  formatReceiptAmount,
  proofOfPayment,
  RECEIPT_SUBJECT,
  receiptFields,
  type ReceiptView,
} from '../../../../src/shared/receipt';
import { copyText } from '../../components/copyText';

export const PROOF_COPIED = 'ID da transação copiado!';
export const PROOF_COPY_FAILED = 'Não foi possível copiar: selecione o ID e copie manualmente.';

/** The proof of payment (PIX end-to-end id, else the provider's id) with a copy button. */
function Proof({ r }: { r: ReceiptView }) {
  const { message } = App.useApp();
  const proof = proofOfPayment(r);
  if (!proof) return null;
  return (
    <div className="receipt-proof">
      <span className="receipt-proof-label">{proof.label}</span>
      <span className="receipt-proof-row">
        <code className="receipt-proof-id">{proof.value}</code>
        <Button
          size="small"
          icon={<CopyOutlined aria-hidden />}
          aria-label={`Copiar ${proof.label}`}
          onClick={() => void copyText(proof.value).then((ok) => (ok ? message.success(PROOF_COPIED) : message.error(PROOF_COPY_FAILED)))}
        >
          Copiar
        </Button>
      </span>
    </div>
  );
}

/**
 * 'Comprovantes de compra': one receipt per paid payment, with the same fields and words as the
 * e-mail sent when the payment was approved (src/shared/receipt.ts writes both), and the id that
 * proves a PIX (its end-to-end id; the provider's transaction id where there is none) to copy.
 */
export function Receipts({ payments }: { payments: ParticipationItem[] }) {
  const receipts = payments.flatMap((p) => (p.status === 'approved' && p.receipt ? [p.receipt] : []));
  if (!receipts.length) return null;
  return (
    <Card
      className="account-card receipts-card"
      title={
        <span>
          <FileDoneOutlined aria-hidden /> Comprovantes de compra
        </span>
      }
    >
      <ul className="receipts-list">
        {receipts.map((r) => (
          <li key={r.payment_id}>
            <details className="receipt" data-payment-id={r.payment_id}>
              <summary>
                <strong>{formatReceiptAmount(r.amount_cents)}</strong>
                <span className="muted"> · {formatBrasiliaDateTime(r.paid_at)}</span>
                <span className="receipt-what">{r.description}</span>
              </summary>
              <section aria-label={`${RECEIPT_SUBJECT} do pagamento ${r.payment_id}`}>
                <h2 className="receipt-title">{RECEIPT_SUBJECT}</h2>
                <Proof r={r} />
                <dl className="receipt-fields">
                  {receiptFields(r).map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{v}</dd>
                    </div>
                  ))}
                </dl>
              </section>
            </details>
          </li>
        ))}
      </ul>
    </Card>
  );
}
