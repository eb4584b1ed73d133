import type { CSSProperties } from 'react';
import './plain.css';

/** One shimmering placeholder block (antd Skeleton's look, without antd). */
export function SkeletonBlock({ className, style }: { className?: string; style?: CSSProperties }) {
  return <span className={className ? `skeleton ${className}` : 'skeleton'} style={style} aria-hidden="true" />;
}

/** A title bar and `rows` text lines, the last one shorter, like antd's <Skeleton paragraph>. */
export function SkeletonText({ title = true, rows = 3, widths = [] as Array<string | number>, titleWidth = '38%' as string | number }) {
  return (
    <div className="skeleton-text" aria-hidden="true">
      {title && <SkeletonBlock className="skeleton-title" style={{ width: titleWidth }} />}
      {Array.from({ length: rows }, (_, i) => (
        <SkeletonBlock key={i} className="skeleton-line" style={{ width: widths[i] ?? (i === rows - 1 && rows > 1 ? '61%' : '100%') }} />
      ))}
    </div>
  );
}
