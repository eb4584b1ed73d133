import type { ReactNode } from 'react';
import { Button, Modal } from 'antd';
import { CheckOutlined } from '@ant-design/icons';

/** A legal text in a dialog whose accept button ticks the registration's terms box. */
export function LegalDialog({
  title,
  open,
  onAccept,
  onClose,
  children,
}: {
  title: string;
  open: boolean;
  onAccept: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      width={760}
      centered
      className="legal-dialog"
      styles={{ body: { maxHeight: '62vh', overflowY: 'auto', paddingRight: 8 } }}
      footer={[
        <Button key="close" onClick={onClose}>
          Fechar
        </Button>,
        <Button key="accept" type="primary" icon={<CheckOutlined />} onClick={onAccept}>
          Li e aceito
        </Button>,
      ]}
    >
      {children}
    </Modal>
  );
}
