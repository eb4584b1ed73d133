import { Button, InputNumber } from 'antd';
import { MinusOutlined, PlusOutlined, QrcodeOutlined } from '@ant-design/icons';
import { formatBRL } from '../../components/product/format';
import { PurchaseModal } from './PurchaseModal';
import { MAX_QUANTITY, MIN_QUANTITY, clampQuantity } from './quantity';

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
  const total = unitPriceCents * quantity;
  return (
    <PurchaseModal
      open={open}
      title="Quantos e-books deseja?"
      onCancel={onCancel}
      width={420}
      action={
        <Button key="ok" type="primary" icon={<QrcodeOutlined />} onClick={onConfirm}>
          Pagar {formatBRL(total)} com PIX
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
          disabled={quantity <= MIN_QUANTITY}
          onClick={() => onChange(clampQuantity(quantity - 1))}
        />
        <InputNumber
          size="large"
          min={MIN_QUANTITY}
          max={MAX_QUANTITY}
          precision={0}
          value={quantity}
          inputMode="numeric"
          aria-label="Quantidade de e-books"
          controls={false}
          className="qty-input"
          onChange={(v) => v != null && onChange(clampQuantity(Number(v)))}
          onPressEnter={onConfirm}
        />
        <Button
          size="large"
          icon={<PlusOutlined />}
          aria-label="Aumentar quantidade"
          disabled={quantity >= MAX_QUANTITY}
          onClick={() => onChange(clampQuantity(quantity + 1))}
        />
      </div>
      <p className="qty-limit muted">Limite: até 20 unidades por compra</p>
      <p className="qty-note">
        Cada e-book dá direito a escolher <strong>1 número</strong> na tabela: com {quantity}{' '}
        {quantity === 1 ? 'e-book você escolhe 1 número' : `e-books você escolhe ${quantity} números`}.
      </p>
      <div className="qty-total" aria-live="polite">
        <span>
          Total ({quantity} × {formatBRL(unitPriceCents)})
        </span>
        <strong>{formatBRL(total)}</strong>
      </div>
    </PurchaseModal>
  );
}
