import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';
import { PageSkeleton } from '../components/PageSkeleton';
import AntdScope from './AntdScope';
import { QueryScope } from '../query';

/**
 * Layout route of the pages built with antd: one scope (theme, locale, message/modal holders) for
 * all of them, so a message shown before a navigation between them ('Conta criada com sucesso!'
 * then /login) stays on screen. Its own <Suspense> keeps the scope mounted while a page loads.
 */
export default function AntdOutlet() {
  return (
    <QueryScope>
      <AntdScope>
        <Suspense fallback={<PageSkeleton />}>
          <Outlet />
        </Suspense>
      </AntdScope>
    </QueryScope>
  );
}
