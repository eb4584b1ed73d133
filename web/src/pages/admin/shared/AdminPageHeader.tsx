import type { ReactNode } from 'react';
import { useDocumentTitle } from '../../../components/useDocumentTitle';

/**
 * The heading row of an admin page: its title (an h1, also the tab title), an optional line under
 * it and the page's actions on the right (below the title on phones).
 */
export function AdminPageHeader({ title, subtitle, extra }: { title: string; subtitle?: ReactNode; extra?: ReactNode }) {
  useDocumentTitle(`${title} · Admin`);
  return (
    <header className="admin-page-header">
      <div className="admin-page-heading">
        <h1>{title}</h1>
        {subtitle && <p className="admin-page-subtitle">{subtitle}</p>}
      </div>
      {extra && <div className="admin-page-actions">{extra}</div>}
    </header>
  );
}
