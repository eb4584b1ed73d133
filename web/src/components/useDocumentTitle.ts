import { useEffect } from 'react';
import { BRAND } from '../brand';
import { formatTitle, routeTitle } from '../routeTitles';

// The tab title is the page's own (useDocumentTitle, while that page is mounted) or else its
// route's (routeTitles.ts, applied by the layout on every navigation). Effects run child first, so
// both are kept here and the title is written from them, whichever effect runs last.
let fromRoute: string | null = null;
let fromPage: string | undefined;
const apply = () => {
  document.title = formatTitle(fromPage ?? fromRoute, BRAND.name);
};

/**
 * A page's own tab title, "<title> — Cota Verde", for titles that depend on the page's data (an
 * e-book's name, a draw's number). Without a title (or once the page unmounts) the route's title
 * from routeTitles.ts applies. Pages with a fixed title need not call it: the map has them.
 */
export function useDocumentTitle(title?: string) {
  useEffect(() => {
    fromPage = title;
    apply();
    return () => {
      if (fromPage === title) fromPage = undefined;
      apply();
    };
  }, [title]);
}

/** Used once, by the app layout: the title of the current route, on every navigation. */
export function useRouteTitle(pathname: string) {
  useEffect(() => {
    fromRoute = routeTitle(pathname);
    apply();
  }, [pathname]);
}
