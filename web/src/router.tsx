import { lazy, Suspense } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { preloadable } from './preloadable';
import { AdminRoute, ProtectedRoute } from './auth/guards';
import { RouteError } from './components/RouteErrorBoundary';
import { BoardPageSkeleton } from './components/board/BoardSkeleton';
import { AppLayout } from './layout/AppLayout';
import HomePage from './pages/home/HomePage';

// Only the home page ships in the main chunk, built of plain elements (no antd): a store visitor's
// first screen downloads React, the router, the layout and the home page. Every other page is a
// lazily loaded chunk (AppLayout wraps the page in <Suspense>), under AntdOutlet, a layout route
// that brings antd's theme and message/modal holders in its own chunk. The registration page
// brings the date picker and the legal texts, which most visits to the home page never need.
const loadAntdOutlet = () => import('./antd/AntdOutlet');
const AntdOutlet = preloadable(loadAntdOutlet);
const LoginPage = lazy(() => import('./pages/login/LoginPage'));
const NotFoundPage = lazy(() => import('./pages/not-found/NotFoundPage'));
const RegisterPage = lazy(() => import('./pages/register/RegisterPage'));
const ResetPasswordPage = lazy(() => import('./pages/reset-password/ResetPasswordPage'));
const AccountPage = lazy(() => import('./pages/account/AccountPage'));
const DrawDetailPage = lazy(() => import('./pages/draw-detail/DrawDetailPage'));
const loadTermsPage = () => import('./pages/legal/TermsPage');
const TermsPage = preloadable(loadTermsPage);
const loadPrivacyPage = () => import('./pages/legal/PrivacyPage');
const PrivacyPage = preloadable(loadPrivacyPage);
const loadResponsibleGamingPage = () => import('./pages/legal/ResponsibleGamingPage');
const ResponsibleGamingPage = preloadable(loadResponsibleGamingPage);
const loadNumbersPage = () => import('./pages/numbers/NumbersPage');
const NumbersPage = preloadable(loadNumbersPage);
const loadCataloguePage = () => import('./pages/catalogue/CataloguePage');
const CataloguePage = preloadable(loadCataloguePage);
const ProductPage = lazy(() => import('./pages/product/ProductPage'));
const loadResultPage = () => import('./pages/result/ResultPage');
const ResultPage = preloadable(loadResultPage);
/** The page of the ADMIN_EMAILS proof link: rare, never part of the store's first visit. */
const ConfirmAdminEmailPage = lazy(() => import('./pages/confirm-admin-email/ConfirmAdminEmailPage'));

/**
 * The admin console is a separate chunk, fetched only when an administrator opens /admin; each of
 * its pages is a further chunk. Nothing under pages/admin is imported here, so none of it enters a
 * store visit (`npm run bench:bundle`).
 */
const AdminConsole = lazy(() => import('./pages/admin/AdminConsole'));

export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <HomePage /> },
      // /numeros (where WhatsApp links send buyers) is built of plain elements, outside the antd
      // scope: it downloads little more than the home page (issue 26, ≤ 1.3×), and shows the
      // board's shape while its chunk arrives.
      {
        path: 'numeros',
        element: (
          <Suspense fallback={<BoardPageSkeleton />}>
            <NumbersPage />
          </Suspense>
        ),
      },
      {
        element: <AntdOutlet />,
        children: [
          { path: 'login', element: <LoginPage /> },
          { path: 'cadastro', element: <RegisterPage /> },
          { path: 'redefinir-senha', element: <ResetPasswordPage /> },
          { path: 'termos', element: <TermsPage /> },
          { path: 'privacidade', element: <PrivacyPage /> },
          { path: 'jogo-responsavel', element: <ResponsibleGamingPage /> },
          { path: 'infoprodutos', element: <CataloguePage /> },
          { path: 'comprar/:sku', element: <ProductPage /> },
          { path: 'resultado/:id', element: <ResultPage /> },
          { path: 'confirmar-email-admin', element: <ConfirmAdminEmailPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
  {
    // Customer area: signed in (administrators included: /conta holds their draw settings).
    element: <AppLayout variant="account" />,
    errorElement: <RouteError />,
    children: [
      {
        element: <AntdOutlet />,
        children: [
          {
            element: <ProtectedRoute />,
            children: [
              // Administrators use /conta too: it holds their draw settings (account spec §2, §6).
              { path: 'conta', element: <AccountPage /> },
              { path: 'me/draw/:id', element: <DrawDetailPage /> },
            ],
          },
        ],
      },
    ],
  },
  {
    // Admin console: administrators only; its pages come from the lazily loaded chunk.
    // 'admin/*' so that the splat child below matches /admin itself as well as every /admin/... address.
    path: 'admin/*',
    element: <AppLayout variant="admin" />,
    errorElement: <RouteError />,
    children: [
      {
        element: <AntdOutlet />,
        children: [
          {
            element: <AdminRoute />,
            children: [
              // AdminConsole routes the /admin/... pages itself (descendant <Routes> built from
              // pages/admin/adminPages.ts, the list its menu is built from too), inside its chunk.
              { path: '*', element: <AdminConsole /> },
            ],
          },
        ],
      },
    ],
  },
];

/** The tab's router; none on the server, which renders `routes` with a static router (entry-server.tsx). */
export const router: ReturnType<typeof createBrowserRouter> =
  typeof document === 'undefined' ? (null as unknown as ReturnType<typeof createBrowserRouter>) : createBrowserRouter(routes);

/** The antd pages among the server-rendered public pages (src/ssr), by path. */
const ANTD_PUBLIC_PAGES: Record<string, { preload(): Promise<void> }> = {
  '/infoprodutos': CataloguePage,
  '/termos': TermsPage,
  '/privacidade': PrivacyPage,
  '/jogo-responsavel': ResponsibleGamingPage,
};

/**
 * The chunks a server-rendered public page (src/ssr) needs before it is hydrated (main.tsx waits
 * for them). Once preloaded, a page renders directly instead of through React.lazy
 * (preloadable.tsx), so no Suspense boundary stays dehydrated: otherwise the first update reaching
 * it (the session loading its profile) would make React drop the server's HTML for the fallback.
 */
export function hydrationChunks(pathname: string): Promise<unknown>[] {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/numeros') return [NumbersPage.preload()];
  const page = path.startsWith('/resultado/') ? ResultPage : ANTD_PUBLIC_PAGES[path];
  return page ? [AntdOutlet.preload(), page.preload()] : [];
}
