import { isAdminUser, type User } from '../../auth/user';

/** Navigation state /login understands (account spec §2 Login, storefront spec §5). */
export interface LoginLocationState {
  /** Where a guard stopped the visitor: a location object or a path. */
  from?: { pathname?: string; search?: string; hash?: string } | string;
  /** Where to go after signing in (used by the storefront's buy button). */
  redirectTo?: string;
  /** Purchase to resume after signing in; handed over to `redirectTo`. */
  pendingBuy?: unknown;
  /** Shown as an info alert at the top of the form, e.g. 'Faça login para comprar o e-book.' */
  message?: string;
  /** Prefills the e-mail field (set after registration). */
  email?: string;
}

/** Only paths inside this app: "/x", never "//host" or "https://…". */
const internalPath = (p: unknown): p is string => typeof p === 'string' && p.startsWith('/') && !p.startsWith('//');

/** Admins → /admin; others → the page they came from, or `redirectTo`, or /. */
export function destinationAfterLogin(
  user: User,
  state: LoginLocationState | null | undefined,
): { to: string; state?: Record<string, unknown> } {
  if (isAdminUser(user)) return { to: '/admin' };
  const from = state?.from;
  const fromPath = typeof from === 'string' ? from : from?.pathname ? `${from.pathname}${from.search ?? ''}${from.hash ?? ''}` : null;
  if (internalPath(fromPath) && !fromPath.startsWith('/login')) return { to: fromPath };
  if (internalPath(state?.redirectTo)) {
    return { to: state.redirectTo, state: state.pendingBuy ? { pendingBuy: state.pendingBuy } : undefined };
  }
  return { to: '/' };
}
