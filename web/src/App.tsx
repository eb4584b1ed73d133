import { RouterProvider } from 'react-router-dom';
import { AuthProvider } from './auth/AuthProvider';
import { router } from './router';

/**
 * The app's root: session and router only. antd (theme, locale, message and modal holders) is
 * not loaded here: see antd/AntdScope.tsx and the router's AntdOutlet.
 */
export function Root() {
  return (
    <AuthProvider>
      <RouterProvider router={router} />
    </AuthProvider>
  );
}
