import { createElement, Suspense, useState } from 'react';
import { Button, Drawer, Layout, Menu, Result } from 'antd';
import { MenuOutlined } from '@ant-design/icons';
import { Link, Route, Routes, useLocation } from 'react-router-dom';
import { LinkButton } from '../../components/LinkButton';
import { PageSkeleton } from '../../components/PageSkeleton';
import { BRAND } from '../../brand';
import { ADMIN_PAGES, navItemFor, routePathOf } from './adminPages';
import './console.css';
import { OpsLink } from './OpsLink';
import { BackupStatusLine } from './BackupStatusLine';
import { MfaEnrollmentScreen, useMfaEnrollmentGate } from './MfaEnrollmentScreen';

/**
 * Entry of the admin console. It is loaded with React.lazy from the route table, so its code
 * (and the code of every admin page it routes to) lives in a separate chunk that customers never
 * download. The top bar (back to /admin, logo, 'Painel (Admin)', 'Sair') comes from AppLayout;
 * the console adds its menu: a side column on desktops, a drawer on phones.
 *
 * Pages: the menu and the <Routes> are both built from ADMIN_PAGES (adminPages.ts), each page a
 * lazily loaded chunk of its own.
 */
export default function AdminConsole() {
  const { pathname } = useLocation();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const current = navItemFor(pathname);
  // An administrator who must turn two-factor sign-in on first sees only the enrolment screen.
  const mfa = useMfaEnrollmentGate();
  if (mfa.required) return <MfaEnrollmentScreen onDone={mfa.done} />;

  return (
    <Layout className="admin-console">
      <Layout.Sider className="admin-console-sider" width={272} theme="dark" aria-label="Menu do painel">
        <ConsoleBrand />
        <ConsoleMenu selected={current?.path} />
        <ConsoleOps />
      </Layout.Sider>
      <Layout className="admin-console-body">
        <div className="admin-console-bar">
          <Button
            icon={<MenuOutlined />}
            onClick={() => setDrawerOpen(true)}
            aria-expanded={drawerOpen}
            aria-controls="admin-console-drawer"
          >
            Menu do painel
          </Button>
          <span className="admin-console-bar-current">{current?.label ?? 'Administração'}</span>
        </div>
        <Drawer
          id="admin-console-drawer"
          title={<ConsoleBrand compact />}
          placement="left"
          size={280}
          open={drawerOpen}
          onClose={() => setDrawerOpen(false)}
          className="admin-console-drawer"
          styles={{ body: { padding: 8 } }}
        >
          {/* A choice in the drawer closes it. */}
          <ConsoleMenu selected={current?.path} onNavigate={() => setDrawerOpen(false)} />
          <ConsoleOps />
        </Drawer>
        {/* A div, not antd's Layout.Content (a <main>): the page has one main landmark, AppLayout's. */}
        <div className="admin-console-content">
          {/* The menu stays while a page's chunk loads. */}
          <Suspense fallback={<PageSkeleton />}>
            <Routes>
              {ADMIN_PAGES.map((item) => {
                const path = routePathOf(item);
                return path ? (
                  <Route key={item.path} path={path} element={<item.page />} />
                ) : (
                  <Route key={item.path} index element={<item.page />} />
                );
              })}
              <Route path="*" element={<AdminNotFound />} />
            </Routes>
          </Suspense>
        </div>
      </Layout>
    </Layout>
  );
}

function ConsoleBrand({ compact = false }: { compact?: boolean }) {
  return (
    <div className={compact ? 'admin-console-brand admin-console-brand--compact' : 'admin-console-brand'}>
      <span className="admin-console-brand-name">{BRAND.name}</span>
      <span className="admin-console-brand-role">Administração</span>
    </div>
  );
}

function ConsoleMenu({ selected, onNavigate }: { selected?: string; onNavigate?: () => void }) {
  return (
    <nav aria-label="Páginas do painel">
      <Menu
        mode="inline"
        theme="dark"
        className="admin-console-menu"
        selectedKeys={selected ? [selected] : []}
        items={ADMIN_PAGES.map((item) => ({
          key: item.path,
          icon: createElement(item.icon),
          label: (
            <Link to={item.path} aria-current={item.path === selected ? 'page' : undefined} onClick={onNavigate}>
              {item.label}
            </Link>
          ),
        }))}
      />
    </nav>
  );
}

/** Below the menu: 'Filas (operações)', the queue dashboard (/ops/queues) through a signed link, and the last backup. */
function ConsoleOps() {
  return (
    <div className="admin-console-ops">
      <span className="admin-console-ops-title">Operações</span>
      <OpsLink block />
      <BackupStatusLine />
    </div>
  );
}

/** An /admin/... address no page answers: said inside the console, with the way back to the dashboard. */
function AdminNotFound() {
  return (
    <Result
      status="404"
      title={<h1 className="result-title">Página não encontrada</h1>}
      subTitle="Esta página do painel não existe (ou ainda não foi publicada). Use o menu ou volte ao painel."
      extra={
        <LinkButton type="primary" to="/admin">
          Voltar ao painel
        </LinkButton>
      }
    />
  );
}
