import { formatBRL } from '../product/format';
import './money.css';

/**
 * An amount in reais that never breaks inside itself ("R$ 500,0" with a "0" on the next line at
 * 360 px): the whole amount is one unbreakable run (white-space: nowrap).
 */
export function Money({ cents, className }: { cents: number | null | undefined; className?: string }) {
  return <span className={className ? `money ${className}` : 'money'}>{formatBRL(cents)}</span>;
}
