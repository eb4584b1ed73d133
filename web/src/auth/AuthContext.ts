import { createContext, useContext } from 'react';
import type { User } from './user';

export interface AuthState {
  /** True until the stored token has been checked against GET /api/me. */
  loading: boolean;
  /** The profile, or null when anonymous or when the profile could not be loaded. */
  user: User | null;
  /** The stored session token. */
  token: string | null;
  /** A user with email or id, or a token (storefront spec §4). */
  isAuthenticated: boolean;
  isAdmin: boolean;
  /** Set when a token exists but the profile call failed for a reason other than 401. */
  profileError: Error | null;
  /**
   * Resolves with the signed-in user, or with the token of the second step when the account has
   * two-factor sign-in on (then `completeLogin` finishes it); rejects with ApiError
   * (missing_token, profile_unavailable…).
   */
  login(email: string, password: string, remember?: boolean): Promise<LoginOutcome>;
  /** Opens the session a sign-in answer carries (`{token, user}`), e.g. the second step's; resolves with the user. */
  completeLogin(body: unknown, remember?: boolean): Promise<User>;
  logout(): Promise<void>;
  /** Reloads the profile with the stored token. */
  refresh(): Promise<void>;
}

export type LoginOutcome = { user: User; mfaToken?: undefined } | { mfaToken: string; user?: undefined };

export const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth must be used inside <AuthProvider>');
  return ctx;
}
