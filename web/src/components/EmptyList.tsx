import { ReloadOutlined } from '@ant-design/icons';
import { PlainButton } from './plain/Button';
import './empty-list.css';

export interface EmptyListProps {
  /** The load failed: an alert with `failedText` and a retry button instead of `emptyText`. */
  failed: boolean;
  onRetry(): void;
  emptyText: string;
  failedText: string;
  /** The page's own class, for its spacing. */
  className?: string;
}

/** What a list page shows when there is nothing to list, or the list could not be loaded (storefront spec §8). */
export function EmptyList({ failed, onRetry, emptyText, failedText, className }: EmptyListProps) {
  return (
    <div className={className ? `empty-list ${className}` : 'empty-list'} role={failed ? 'alert' : undefined}>
      <p>{failed ? failedText : emptyText}</p>
      {failed && (
        <PlainButton icon={<ReloadOutlined />} onClick={onRetry}>
          Tentar de novo
        </PlainButton>
      )}
    </div>
  );
}
