import { lazy, Suspense, useState } from 'react';
import { ArrowLeftOutlined, DashboardOutlined, LoginOutlined, LogoutOutlined, UserAddOutlined, UserOutlined } from '@ant-design/icons';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import { PlainButton } from '../components/plain/Button';
import { SkeletonBlock } from '../components/plain/Skeleton';
import { useGoBack } from '../components/useGoBack';
import { Logo } from './Logo';
import { MenuTrigger } from './MenuTrigger';

export type TopBarVariant = 'store' | 'account' | 'admin';

// The phone menu (antd Dropdown) is loaded on the first tap of its button; once loaded, the top
// bars of the other layouts render it directly.
const TopBarMenu = lazy(() => import('./TopBarMenu'));
let menuLoaded = false;
const markMenuLoaded = () => {
  menuLoaded = true;
};

export interface Item {
  key: string;
  label: string;
  icon: React.ReactNode;
  to?: string;
  onClick?: () => void;
}

/**
 * Storefront top bar (storefront spec §2 Home): 'Criar conta', the logo and a menu.
 * The customer area adds a back button and the logo leads home (account spec §2);
 * the admin console's bar leads back to /admin.
 */
export function TopBar({ variant = 'store' }: { variant?: TopBarVariant }) {
  const { loading, isAuthenticated, isAdmin, logout } = useAuth();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [leaving, setLeaving] = useState(false);
  const [menuWanted, setMenuWanted] = useState(menuLoaded);

  const signOut = async () => {
    setLeaving(true);
    try {
      // Leave a guarded page first: ending the session there would make its guard redirect to /login.
      navigate('/', { flushSync: true });
      await logout();
      // No antd scope above the top bar: the message comes with its own small chunk.
      void import('../antd/toast').then((m) => m.toastSuccess('Você saiu da sua conta.'));
    } finally {
      setLeaving(false);
    }
  };

  const logoTo = variant === 'admin' ? '/admin' : variant === 'account' ? '/' : isAuthenticated ? '/conta' : '/';

  const items: Item[] = [];
  if (isAuthenticated) {
    if (variant === 'admin') {
      items.push({ key: 'admin', label: 'Painel (Admin)', icon: <DashboardOutlined />, to: '/admin' });
    } else {
      if (isAdmin) items.push({ key: 'admin', label: 'Painel Admin', icon: <DashboardOutlined />, to: '/admin' });
      items.push({ key: 'conta', label: 'Área do cliente', icon: <UserOutlined />, to: '/conta' });
    }
    items.push({ key: 'sair', label: 'Sair', icon: <LogoutOutlined />, onClick: () => void signOut() });
  } else {
    items.push({ key: 'entrar', label: 'Entrar', icon: <LoginOutlined />, to: '/login' });
  }

  // The whole row of a menu item is clickable, not only its text.
  const select = (key: string) => {
    const item = items.find((i) => i.key === key);
    if (item?.to) navigate(item.to);
    else item?.onClick?.();
  };

  const goBack = useGoBack('/');
  const back = variant === 'admin' ? () => navigate('/admin') : goBack;

  return (
    <header className="topbar">
      <div className="topbar-inner">
        {variant !== 'store' && !(variant === 'admin' && pathname.replace(/\/+$/, '') === '/admin') && (
          <PlainButton type="text" iconOnly icon={<ArrowLeftOutlined />} onClick={back} aria-label="Voltar" className="topbar-back" />
        )}
        <Logo to={logoTo} />
        <nav className="topbar-actions" aria-label="Menu principal">
          {!loading && !isAuthenticated && (
            <Link to="/cadastro" className="topbar-signup">
              <UserAddOutlined aria-hidden /> Criar conta
            </Link>
          )}
          {loading ? (
            <SkeletonBlock className="skeleton-button" style={{ width: 88, height: 24 }} />
          ) : (
            <>
              <div className="topbar-inline">
                {items.map((i) =>
                  i.to ? (
                    <Link key={i.key} to={i.to} className="topbar-link">
                      {i.icon} {i.label}
                    </Link>
                  ) : (
                    <PlainButton key={i.key} type="text" icon={i.icon} onClick={i.onClick} loading={leaving}>
                      {i.label}
                    </PlainButton>
                  ),
                )}
              </div>
              <div className="topbar-dropdown">
                {menuWanted ? (
                  <Suspense fallback={<MenuTrigger busy />}>
                    <TopBarMenu items={items} onSelect={select} busy={leaving} openAtStart={!menuLoaded} onLoaded={markMenuLoaded} />
                  </Suspense>
                ) : (
                  <MenuTrigger busy={leaving} onClick={() => setMenuWanted(true)} />
                )}
              </div>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}
