import { lazy } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { PageSkeleton } from '../components/PageSkeleton';
import { useAuth } from './AuthContext';

// Rare (the profile call failed) and built with antd: loaded when needed, under AntdOutlet's <Suspense>.
const ProfileError = lazy(() => import('../components/ProfileError').then((m) => ({ default: m.ProfileError })));

/**
 * Route guards as layout routes (account spec §2 "Guards"): each wraps a group of routes and
 * renders them through <Outlet/> once the session allows it. While the session is loading they
 * show a skeleton, never a redirect.
 */

/** Signed-in users only; others go to /login, remembering where they were going. */
export function ProtectedRoute() {
  const { loading, isAuthenticated } = useAuth();
  const location = useLocation();
  if (loading) return <PageSkeleton />;
  if (!isAuthenticated) return <Navigate to="/login" replace state={{ from: location }} />;
  return <Outlet />;
}

/** Administrators only: anonymous → /login, everybody else → /. */
export function AdminRoute() {
  const { loading, isAuthenticated, isAdmin, user } = useAuth();
  const location = useLocation();
  if (loading) return <PageSkeleton />;
  if (!isAuthenticated) return <Navigate to="/login" replace state={{ from: location }} />;
  if (!user) return <ProfileError />;
  if (!isAdmin) return <Navigate to="/" replace />;
  return <Outlet />;
}

/** Customer pages: administrators are sent to the admin console. */
export function CustomerOnlyRoute() {
  const { loading, isAdmin } = useAuth();
  if (loading) return <PageSkeleton />;
  if (isAdmin) return <Navigate to="/admin" replace />;
  return <Outlet />;
}
