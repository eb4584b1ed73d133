import { forwardRef, type ButtonHTMLAttributes } from 'react';
import { MenuOutlined } from '@ant-design/icons';
import { btnClass } from '../components/plain/Button';

/** The top bar's menu button on phones (plain element, so it also serves as the antd Dropdown's trigger). */
export const MenuTrigger = forwardRef<HTMLButtonElement, { busy?: boolean } & ButtonHTMLAttributes<HTMLButtonElement>>(function MenuTrigger(
  { busy, ...rest },
  ref,
) {
  return (
    <button
      ref={ref}
      type="button"
      aria-label="Abrir menu"
      {...rest}
      className={btnClass({ iconOnly: true })}
      disabled={busy}
      aria-busy={busy || undefined}
    >
      {busy ? <span className="btn-spinner" aria-hidden="true" /> : <MenuOutlined />}
    </button>
  );
});
