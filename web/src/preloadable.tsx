import { lazy, type ComponentType } from 'react';

/**
 * A lazily loaded page that can also be loaded ahead: `preload()` fetches its chunk and, once it
 * is there, the component renders it directly instead of through React.lazy (which suspends on its
 * first render even when the module is already loaded). Hydrating a server-rendered page whose
 * chunk is preloaded therefore never leaves a Suspense boundary dehydrated, where the first update
 * reaching it (the session loading its profile) would make React swap the server's HTML for the
 * fallback (main.tsx, router.tsx hydrationChunks).
 */
export function preloadable<P extends object>(load: () => Promise<{ default: ComponentType<P> }>) {
  let loaded: ComponentType<P> | null = null;
  const Lazy = lazy(load);
  function Preloadable(props: P) {
    const Component = loaded ?? Lazy;
    return <Component {...props} />;
  }
  Preloadable.preload = () =>
    load().then((m) => {
      loaded = m.default;
    });
  return Preloadable;
}
