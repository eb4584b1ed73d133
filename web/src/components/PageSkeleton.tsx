import { SkeletonBlock, SkeletonText } from './plain/Skeleton';

/** Placeholder shown while the session or a lazily loaded page is on its way (plain elements: no antd needed yet). */
export function PageSkeleton({ label = 'Carregando…' }: { label?: string }) {
  return (
    <div className="page page-narrow" role="status" aria-live="polite" aria-label={label}>
      <SkeletonText titleWidth="55%" rows={2} />
      <SkeletonBlock style={{ width: '100%', height: 160, marginTop: 24 }} />
      <div style={{ marginTop: 24 }}>
        <SkeletonText rows={3} />
      </div>
    </div>
  );
}
