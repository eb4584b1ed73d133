import { lazy, Suspense } from 'react';
import { PageSkeleton } from './PageSkeleton';

// The error page uses antd (Result, buttons): it comes in its own chunk, with the antd scope.
const ScopedRouteError = lazy(async () => {
  const [{ default: AntdScope }, { RouteError }] = await Promise.all([import('../antd/AntdScope'), import('./RouteError')]);
  return {
    default: function ScopedRouteError() {
      return (
        <AntdScope>
          <RouteError />
        </AntdScope>
      );
    },
  };
});

/** errorElement of the route trees: the error page (components/RouteError.tsx), loaded when needed. */
export function RouteError() {
  return (
    <Suspense fallback={<PageSkeleton />}>
      <ScopedRouteError />
    </Suspense>
  );
}
