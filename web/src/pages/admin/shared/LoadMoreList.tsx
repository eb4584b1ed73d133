import type { ReactNode } from 'react';
import { Alert, Button, Skeleton } from 'antd';

/** What LoadMoreList reads from a `usePagedList` result. */
export interface LoadMoreState {
  error: string | null;
  loading: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  reload: () => void;
  loadMore: () => void;
}

/**
 * The body of an admin list read through `usePagedList`: the error (with 'Tentar de novo'), a
 * skeleton while the first page loads, then the table and 'Carregar mais' while there is more.
 */
export function LoadMoreList({ list, table }: { list: LoadMoreState; table: ReactNode }) {
  return (
    <>
      {list.error && (
        <Alert
          type="error"
          showIcon
          title={list.error}
          style={{ marginBottom: 16 }}
          action={
            <Button size="small" onClick={list.reload}>
              Tentar de novo
            </Button>
          }
        />
      )}
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
