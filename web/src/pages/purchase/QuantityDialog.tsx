import { useEffect, useState } from 'react';
import { Button, Input } from 'antd';
import { MinusOutlined, PlusOutlined, QrcodeOutlined } from '@ant-design/icons';
import { formatBRL } from '../../components/product/format';
import { PurchaseModal } from './PurchaseModal';
import { MAX_QUANTITY, MIN_QUANTITY, clampQuantity, readQuantity, LIMIT_TEXT } from './quantity';

export interface QuantityDialogProps {
  open: boolean;
  title: string;
  unitPriceCents: number;
  quantity: number;
  onChange(quantity: number): void;
  onCancel(): void;
  onConfirm(): void;
}

/** Step 2 of the purchase (storefront spec §4, §5): 1 to 20 e-books, total = quantity × unit price. */
export function QuantityDialog({ open, title, unitPriceCents, quantity, onChange, onCancel, onConfirm }: QuantityDialogProps) {
  // The field's own text: what the person typed, so the total and Pagar always follow the field.
  const [text, setText] = useState(String(quantity));
  const [limitHit, setLimitHit] = useState(false);
  useEffect(() => {
    setText((t) => (readQuantity(t).quantity === quantity ? t : String(quantity)));
  }, [quantity]);
  useEffect(() => {
    if (!open) setLimitHit(false);
  }, [open]);
  const typed = readQuantity(text);
  const valid = typed.quantity !== null;
  const total = unitPriceCents * (typed.quantity ?? 0);
  const onType = (raw: string) => {
    const r = readQuantity(raw);
    setLimitHit(r.overLimit);
    setText(r.text);
    if (r.quantity !== null) onChange(r.quantity);
  };
  const step = (q: number) => {
    setLimitHit(false);
    onChange(clampQuantity(q));
    setText(String(clampQuantity(q)));
  };
  const confirm = () => {
    if (valid) onConfirm();
  };
  return (
    <PurchaseModal
      open={open}
      title="Quantos e-books deseja?"
      onCancel={onCancel}
      width={420}
      action={
        <Button key="ok" type="primary" icon={<QrcodeOutlined />} onClick={confirm} disabled={!valid}>
          {valid ? `Pagar ${formatBRL(total)} com PIX` : 'Pagar com PIX'}
        </Button>
      }
    >
      <p className="qty-product">
        <strong>{title}</strong>
        <span className="muted">{formatBRL(unitPriceCents)} / 1 número</span>
      </p>
      <div className="qty-stepper">
        <Button
          size="large"
          icon={<MinusOutlined />}
          aria-label="Diminuir quantidade"
          disabled={(typed.quantity ?? MIN_QUANTITY) <= MIN_QUANTITY}
          onClick={() => step((typed.quantity ?? MIN_QUANTITY) - 1)}
        />
        <Input
          size="large"
          role="spinbutton"
          aria-valuemin={MIN_QUANTITY}
          aria-valuemax={MAX_QUANTITY}
          aria-valuenow={typed.quantity ?? undefined}
          aria-invalid={!valid || undefined}
          aria-describedby="qty-limit"
          value={text}
          inputMode="numeric"
          autoComplete="off"
          aria-label="Quantidade de e-books"
          className="qty-input"
          status={!valid ? 'error' : limitHit ? 'warning' : undefined}
          onChange={(e) => onType(e.target.value)}
          onBlur={() => {
            if (!valid) step(MIN_QUANTITY);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
              e.preventDefault();
              step((typed.quantity ?? MIN_QUANTITY) + (e.key === 'ArrowUp' ? 1 : -1));
            }
          }}
          onPressEnter={(e) => {
            // Cancelled here, the key's keypress never reaches the PIX dialog's first button,
            // which takes the focus as it opens (it would press 'Cancelar').
            e.preventDefault();
            confirm();
          }}
        />
        <Button
          size="large"
          icon={<PlusOutlined />}
          aria-label="Aumentar quantidade"
          disabled={(typed.quantity ?? MIN_QUANTITY) >= MAX_QUANTITY}
          onClick={() => step((typed.quantity ?? MIN_QUANTITY) + 1)}
        />
      </div>
      <p id="qty-limit" className={`qty-limit${limitHit ? ' qty-limit--hit' : ' muted'}`} role={limitHit ? 'alert' : undefined}>
        {LIMIT_TEXT}
        {limitHit && ': a quantidade foi ajustada para 20.'}
      </p>
      {!valid && (
        <p className="qty-error" role="alert">
          Informe uma quantidade de {MIN_QUANTITY} a {MAX_QUANTITY}.
        </p>
      )}
      <p className="qty-note">
        Cada e-book dá direito a escolher <strong>1 número</strong> na tabela
        {valid && (
          <>
            : com {typed.quantity}{' '}
            {typed.quantity === 1 ? 'e-book você escolhe 1 número' : `e-books você escolhe ${typed.quantity} números`}
          </>
        )}
        .
      </p>
      <div className="qty-total" aria-live="polite">
        <span>{valid ? `Total (${typed.quantity} × ${formatBRL(unitPriceCents)})` : 'Total'}</span>
        <strong>{valid ? formatBRL(total) : '—'}</strong>
      </div>
    </PurchaseModal>
  );
}
