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

      footer={[
        <Button key="close" onClick={onClose}>
          Fechar
        </Button>,
        <Button key="accept" type="primary" icon={<CheckOutlined />} onClick={onAccept}>
          Li e aceito
        </Button>,
      ]}
    >
      {/* The long text scrolls in its own region, which takes keyboard focus so it scrolls by
          arrow keys too (WCAG 2.1.1; axe scrollable-region-focusable). */}
      <div
        className="legal-dialog-text"
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrollable region must take focus (see above)
        tabIndex={0}
        role="region"
        aria-label={title}
        style={{ maxHeight: '62vh', overflowY: 'auto', paddingRight: 8 }}
      >
        {children}
      </div>
    </Modal>
  );
}
