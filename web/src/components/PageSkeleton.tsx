import { Skeleton } from 'antd';

/** Placeholder shown while the session or a lazily loaded page is on its way. */
export function PageSkeleton({ label = 'Carregando…' }: { label?: string }) {
  return (
    <div className="page page-narrow" role="status" aria-live="polite" aria-label={label}>
      <Skeleton active title={{ width: '55%' }} paragraph={{ rows: 2 }} />
      <Skeleton.Node active style={{ width: '100%', height: 160, marginTop: 24 }} />
      <Skeleton active paragraph={{ rows: 3 }} style={{ marginTop: 24 }} />
    </div>
  );
}
