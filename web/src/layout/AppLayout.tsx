import { Suspense } from 'react';
import { Outlet, ScrollRestoration } from 'react-router-dom';
import { PageSkeleton } from '../components/PageSkeleton';
import { Footer } from './Footer';
import { TopBar, type TopBarVariant } from './TopBar';

/** The shared layout: top bar, the page, the footer. */
export function AppLayout({ variant = 'store' }: { variant?: TopBarVariant }) {
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
