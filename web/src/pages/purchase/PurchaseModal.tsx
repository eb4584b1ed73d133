import type { ReactElement, ReactNode } from 'react';
import { Button, Modal } from 'antd';
import './purchase.css';

export interface PurchaseModalProps {
  open: boolean;
  title: string;
  width: number;
  onCancel(): void;
  /** false: a click outside does not close it. */
  maskClosable?: false;
  /** The step's main button, beside 'Cancelar' (give it a key). */
  action: ReactElement;
  children: ReactNode;
}

/** A step dialog of the purchase flow (storefront spec §2 dialogs): centered, 'Cancelar' and one main action. */
export function PurchaseModal({ open, title, width, onCancel, maskClosable, action, children }: PurchaseModalProps) {
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onCancel}
      {...(maskClosable === false ? { maskClosable } : {})}
      destroyOnHidden
      centered
      width={width}
      className="purchase-modal"
      footer={[
        <Button key="cancel" onClick={onCancel}>
          Cancelar
        </Button>,
        action,
      ]}
    >
      {children}
    </Modal>
  );
}
