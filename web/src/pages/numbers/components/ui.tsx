import { useId, useLayoutEffect, useRef, type ReactNode } from 'react';
import { CheckCircleFilled, CloseOutlined, ExclamationCircleFilled, InfoCircleFilled } from '@ant-design/icons';
import './ui.css';

/**
 * The few building blocks /numeros used from antd (Alert, Tag, Result, Modal), as plain elements:
 * the page WhatsApp links send buyers to loads no antd (issue 26: at most 1.3× the home page's JS).
 */

type Tone = 'error' | 'warning' | 'info' | 'success';

const ICON: Record<Tone, ReactNode> = {
  error: <ExclamationCircleFilled />,
  warning: <ExclamationCircleFilled />,
  info: <InfoCircleFilled />,
  success: <CheckCircleFilled />,
};

/** A message box (antd Alert's look): title, optional description and close button. */
export function Callout({
  tone,
  title,
  children,
  className,
  onClose,
}: {
  tone: Tone;
  title: ReactNode;
  children?: ReactNode;
  className?: string;
  onClose?(): void;
}) {
  return (
    <div
      role={tone === 'error' || tone === 'warning' ? 'alert' : 'status'}
      className={`callout callout--${tone}${className ? ` ${className}` : ''}`}
    >
      <span className="callout-icon" aria-hidden="true">
        {ICON[tone]}
      </span>
      <div className="callout-body">
        <div className="callout-title">{title}</div>
        {children != null && <div className="callout-text">{children}</div>}
      </div>
      {onClose && (
        <button type="button" className="callout-close" aria-label="Fechar mensagem" onClick={onClose}>
          <CloseOutlined aria-hidden />
        </button>
      )}
    </div>
  );
}

/** A small outlined label (antd Tag). */
export function Tag({ tone, children }: { tone: 'green' | 'gold' | 'default'; children: ReactNode }) {
  return <span className={`tag tag--${tone}`}>{children}</span>;
}

/** A whole-page answer (antd Result): title, text and actions. */
export function ResultBlock({ tone, title, text, children }: { tone: Tone; title: string; text: ReactNode; children?: ReactNode }) {
  return (
    <div className="result-block">
      <span className={`result-block-icon callout--${tone}`} aria-hidden="true">
        {ICON[tone]}
      </span>
      <h1 className="result-title">{title}</h1>
      <p className="result-block-text">{text}</p>
      {children && <div className="result-actions">{children}</div>}
    </div>
  );
}

/**
 * A modal dialog on the native <dialog> (focus trapped and Esc handled by the browser, the rest of
 * the page inert). Mounted open and closed by unmounting: `onCancel` (Esc, ×) asks
 * the owner to unmount it; when it goes, the focus returns to what had it before, unless
 * `returnFocus` is false (the owner moves it elsewhere).
 */
export function Dialog({
  title,
  children,
  footer,
  onCancel,
  className,
  returnFocus = true,
}: {
  title: string;
  children: ReactNode;
  footer: ReactNode;
  /** Undefined: the dialog cannot be dismissed now (e.g. while submitting). */
  onCancel?(): void;
  className?: string;
  returnFocus?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const returnRef = useRef(returnFocus);
  useLayoutEffect(() => {
    returnRef.current = returnFocus;
  }, [returnFocus]);
  useLayoutEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      if (returnRef.current && opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`plain-dialog${className ? ` ${className}` : ''}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel?.();
      }}
    >
      <div className="plain-dialog-head">
        <h2 id={titleId} className="plain-dialog-title">
          {title}
        </h2>
        {onCancel && (
          <button type="button" className="plain-dialog-close" aria-label="Fechar" onClick={onCancel}>
            <CloseOutlined aria-hidden />
          </button>
        )}
      </div>
      <div className="plain-dialog-body">{children}</div>
      <div className="plain-dialog-footer">{footer}</div>
    </dialog>
  );
}
