import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { Link, type LinkProps } from 'react-router-dom';
import './plain.css';

/**
 * Buttons of the first screen as plain elements styled like the antd theme's (plain.css): the
 * home page and the layout render without loading antd, whose dialogs and forms come later.
 */
export interface PlainButtonStyle {
  type?: 'default' | 'primary' | 'text';
  size?: 'middle' | 'large';
  block?: boolean;
  icon?: ReactNode;
  /** Icon-only button: square, label in aria-label. */
  iconOnly?: boolean;
}

export function btnClass({ type = 'default', size = 'middle', block, iconOnly }: PlainButtonStyle, extra?: string): string {
  return ['btn', type !== 'default' && `btn-${type}`, size === 'large' && 'btn-lg', block && 'btn-block', iconOnly && 'btn-icon', extra]
    .filter(Boolean)
    .join(' ');
}

const Spinner = () => <span className="btn-spinner" aria-hidden="true" />;

export function PlainButton({
  type,
  size,
  block,
  icon,
  iconOnly,
  loading,
  className,
  children,
  ...rest
}: PlainButtonStyle & { loading?: boolean } & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'>) {
  return (
    <button
      type="button"
      {...rest}
      className={btnClass({ type, size, block, iconOnly }, className)}
      aria-busy={loading || undefined}
      onClick={loading ? undefined : rest.onClick}
    >
      {loading ? <Spinner /> : icon}
      {children != null && <span>{children}</span>}
    </button>
  );
}

/** A router link that looks like a button. */
export function PlainLinkButton({ type, size, block, icon, className, children, ...rest }: PlainButtonStyle & LinkProps) {
  return (
    <Link {...rest} className={btnClass({ type, size, block }, className)}>
      {icon}
      <span>{children}</span>
    </Link>
  );
}
