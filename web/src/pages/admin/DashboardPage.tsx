import { createElement, useCallback, useEffect, useState } from 'react';
import { Card } from 'antd';
import { AppstoreOutlined } from '@ant-design/icons';
import type { DashboardSummary } from '../../api/types';
import { LinkButton } from '../../components/LinkButton';
import { AdminPageHeader } from './shared/AdminPageHeader';
import { ADMIN_PAGES } from './adminPages';
import { dashboardApi } from './dashboard/dashboardApi';
import { CurrentDrawCard } from './dashboard/CurrentDrawCard';
import { SettingsCard } from './dashboard/SettingsCard';
import { DrawsTable } from './dashboard/DrawsTable';
import { FiguresCard } from './dashboard/FiguresCard';
import './dashboard/dashboard.css';

/**
 * Admin dashboard /admin (account spec §2 "Admin dashboard", §4, §5, §8): the main series'
 * current draw with 'NOVO SORTEIO', ticket price, max numbers per selection and promo phrase
 * (ATUALIZAR), the draws table and the buttons to the other admin pages. A change in one part
 * (a new draw, a status toggled, a price) reloads the others (`version`).
 */
export default function DashboardPage() {
  const [summary, setSummary] = useState<DashboardSummary | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  const changed = useCallback(() => setVersion((v) => v + 1), []);

  useEffect(() => {
    const ctrl = new AbortController();
    setLoading(true);
    setLoadError(null);
    dashboardApi
      .summary(ctrl.signal)
      .then(setSummary)
      .catch((err) => {
        if (!ctrl.signal.aborted) setLoadError(err);
      })
      .finally(() => {
        if (!ctrl.signal.aborted) setLoading(false);
      });
    return () => ctrl.abort();
  }, [version]);

  return (
    <div className="admin-dashboard">
      <AdminPageHeader title="Painel administrativo" subtitle="Sorteio atual, preço, configurações e sorteios." />
      <div className="dashboard-top">
        <CurrentDrawCard summary={summary} loading={loading} loadError={loadError} onRetry={changed} onChanged={changed} />
        <SettingsCard summary={summary} loading={loading} onSaved={changed} />
      </div>
      <FiguresCard />
      <DrawsTable version={version} onChanged={changed} />
      <Card className="admin-card dashboard-nav" title={<span><AppstoreOutlined aria-hidden /> Outras páginas</span>}>
        <nav aria-label="Outras páginas do painel" className="dashboard-nav-grid">
          {ADMIN_PAGES.filter((item) => item.path !== '/admin').map((item) => (
            <LinkButton key={item.path} to={item.path} icon={createElement(item.icon)} className="dashboard-nav-button">
              <span className="dashboard-nav-text">
                <span className="dashboard-nav-label">{item.label}</span>
                <span className="dashboard-nav-hint">{item.hint}</span>
              </span>
            </LinkButton>
          ))}
        </nav>
      </Card>
    </div>
  );
}
