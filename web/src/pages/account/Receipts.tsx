import { Card } from 'antd';
import { FileDoneOutlined } from '@ant-design/icons';
import type { ParticipationItem } from '../../../../src/shared/api/account';
import { formatBrasiliaDateTime, formatReceiptAmount, RECEIPT_SUBJECT, receiptFields } from '../../../../src/shared/receipt';

/**
 * 'Comprovantes de compra': one receipt per paid payment, with the same fields and words as the
 * e-mail sent when the payment was approved (src/shared/receipt.ts writes both).
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
                <h3 className="receipt-title">{RECEIPT_SUBJECT}</h3>
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
