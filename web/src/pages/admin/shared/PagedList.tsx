import type { ReactNode } from 'react';
import { Button, Flex, Skeleton } from 'antd';
import { RetryAlert } from './RetryAlert';

/** The 'Anterior' / 'Próxima' buttons under an offset-paginated admin list (hidden on a single page). */
export function OffsetPager({
  offset,
  hasMore,
  loading,
  pageSize,
  onOffset,
}: {
  offset: number;
  hasMore: boolean;
  loading: boolean;
  pageSize: number;
  onOffset: (offset: number) => void;
}) {
  if (!(offset > 0 || hasMore)) return null;
  return (
    <Flex gap={8} justify="flex-end" className="admin-pager">
      <Button disabled={offset === 0 || loading} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        Anterior
      </Button>
      <Button disabled={!hasMore || loading} onClick={() => onOffset(offset + pageSize)}>
        Próxima
      </Button>
    </Flex>
  );
}

/**
 * The body of a paginated admin list: the load error (with 'Tentar de novo'), a skeleton on the first
 * load, then cards on phones or the table on wide screens, each followed by the pager.
 */
export function PagedList<T>({
  loadError,
  onRetry,
  items,
  loading,
  wide,
  cards,
  table,
  offset,
  hasMore,
  pageSize,
  onOffset,
}: {
  loadError: string | null;
  onRetry: () => void;
  items: T[] | null;
  loading: boolean;
  wide: boolean;
  cards: (items: T[]) => ReactNode;
  table: ReactNode;
  offset: number;
  hasMore: boolean;
  pageSize: number;
  onOffset: (offset: number) => void;
}) {
  const pager = <OffsetPager offset={offset} hasMore={hasMore} loading={loading} pageSize={pageSize} onOffset={onOffset} />;
  return (
    <>
      {loadError && <RetryAlert title={loadError} onRetry={onRetry} className="admin-form-error" />}
      {items === null && loading ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : !wide ? (
        <>
          {loading ? <Skeleton active paragraph={{ rows: 4 }} /> : cards(items ?? [])}
          {pager}
        </>
      ) : (
        <>
          {table}
          {pager}
        </>
      )}
    </>
  );
}
