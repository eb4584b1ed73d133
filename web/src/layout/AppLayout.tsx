import { Suspense, useEffect } from 'react';
import { Outlet, ScrollRestoration, useLocation } from 'react-router-dom';
import { PageSkeleton } from '../components/PageSkeleton';
import { useRouteTitle } from '../components/useDocumentTitle';
import { startPortugueseLabels } from '../antd/portugueseLabels';
import { Footer } from './Footer';
import { TopBar, type TopBarVariant } from './TopBar';

/** The shared layout: top bar, the page, the footer. */
export function AppLayout({ variant = 'store' }: { variant?: TopBarVariant }) {
  // Every page's tab title from its route (routeTitles.ts); pages with data-dependent titles refine it.
  useRouteTitle(useLocation().pathname);
  // antd's English screen-reader texts (icons' names, InputNumber's steps) in Portuguese, page-wide.
  useEffect(startPortugueseLabels, []);
  return (
    <div className="app">
      <a href="#conteudo" className="skip-link">
        Pular para o conteúdo
      </a>
      <TopBar variant={variant} />
      <main id="conteudo" className="app-main" tabIndex={-1}>
        {/* Pages (and the admin console) are lazily loaded chunks. */}
        <Suspense fallback={<PageSkeleton />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
      <ScrollRestoration />
    </div>
  );
}
