import { Button, type ButtonProps } from 'antd';
import { useHref, useLinkClickHandler } from 'react-router-dom';

/** An antd Button that is a real link (<a href>) and navigates inside the app without reloading. */
export function LinkButton({ to, replace, ...props }: Omit<ButtonProps, 'href' | 'onClick'> & { to: string; replace?: boolean }) {
  const href = useHref(to);
  const onClick = useLinkClickHandler<HTMLElement>(to, { replace });
  return <Button {...props} href={href} onClick={onClick} />;
}
