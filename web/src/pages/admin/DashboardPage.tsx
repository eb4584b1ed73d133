import { createElement, useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Card } from 'antd';
import { AppstoreOutlined } from '@ant-design/icons';
import { LinkButton } from '../../components/LinkButton';
import { AdminPageHeader } from './shared/AdminPageHeader';
import { ADMIN_PAGES } from './adminPages';
import { adminKeys, useKeptQuery } from './shared/queries';
import { dashboardApi } from './dashboard/dashboardApi';
import { CurrentDrawCard } from './dashboard/CurrentDrawCard';
import { SettingsCard } from './dashboard/SettingsCard';
import { PrizeContactCard } from './dashboard/PrizeContactCard';
import { DrawsTable } from './dashboard/DrawsTable';
import { FiguresCard } from './dashboard/FiguresCard';
import './dashboard/dashboard.css';

/**
 * Admin dashboard /admin (account spec §2 "Admin dashboard", §4, §5, §8): the main series'
 * current draw with 'NOVO SORTEIO', ticket price, max numbers per selection and promo phrase
 * (ATUALIZAR), the draws table and the buttons to the other admin pages. A change in one part
 * (a new draw, a status toggled, a price) reloads the others: it invalidates adminKeys.dashboard,
 * the summary's and the draws table's prefix.
 */
export default function DashboardPage() {
  const client = useQueryClient();
  const q = useKeptQuery(adminKeys.summary, (signal) => dashboardApi.summary(signal));
  const summary = q.data;
  const loading = q.loading;
  const loadError = q.isFetching ? null : q.error;
  const changed = useCallback(() => void client.invalidateQueries({ queryKey: adminKeys.dashboard }), [client]);

  return (
    <div className="admin-dashboard">
      <AdminPageHeader title="Painel administrativo" subtitle="Sorteio atual, preço, configurações e sorteios." />
      <div className="dashboard-top">
        <CurrentDrawCard summary={summary} loading={loading} loadError={loadError} onRetry={changed} onChanged={changed} />
        <SettingsCard summary={summary} loading={loading} onSaved={changed} />
      </div>
      <PrizeContactCard />
      <FiguresCard />
      <DrawsTable onChanged={changed} />
      <Card
        className="admin-card dashboard-nav"
        title={
          <span>
            <AppstoreOutlined aria-hidden /> Outras páginas
          </span>
        }
      >
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
