import type { ReactNode } from 'react';
import { Button, Skeleton } from 'antd';
import { RetryAlert } from './RetryAlert';

/** What LoadMoreList reads from a `useLoadMoreList` result (shared/queries.ts). */
export interface LoadMoreState {
  error: string | null;
  loading: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  reload: () => void;
  loadMore: () => void;
}

/**
 * The body of an admin list read through `useLoadMoreList`: the error (with 'Tentar de novo'), a
 * skeleton while the first page loads, then the table and 'Carregar mais' while there is more.
 */
export function LoadMoreList({ list, table }: { list: LoadMoreState; table: ReactNode }) {
  return (
    <>
      {list.error && <RetryAlert title={list.error} style={{ marginBottom: 16 }} onRetry={list.reload} />}
      {list.loading ? (
        <div role="status" aria-label="Carregando…">
          <Skeleton active paragraph={{ rows: 6 }} />
        </div>
      ) : (
        table
      )}
      {list.hasMore && !list.loading && (
        <div className="adm-more">
          <Button onClick={list.loadMore} loading={list.loadingMore}>
            Carregar mais
          </Button>
        </div>
      )}
    </>
  );
}
