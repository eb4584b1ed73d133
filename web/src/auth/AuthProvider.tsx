import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { api, ApiError, TOKEN_KEY, tokenStore } from '../api/client';
import { AuthContext, type AuthState, type LoginOutcome } from './AuthContext';
import { isAdminUser, mfaTokenOf, tokenOf, toUser, type User } from './user';
import { hydration } from '../ssr/seeds';

async function fetchProfile(): Promise<User> {
  const body = await api.get('/me');
  const user = toUser(body);
  if (!user) throw new ApiError(200, 'profile_unavailable', 'Não foi possível carregar seus dados.');
  return user;
}

/** Session layer (storefront spec §4 "Session"). */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [loading, setLoading] = useState(true);
  const [user, setUser] = useState<User | null>(null);
  // Hydrating a server-rendered page: no token in the first render, as on the server (the profile load reads it next).
  const [token, setToken] = useState<string | null>(() => (hydration.active ? null : tokenStore.get()));
  const [profileError, setProfileError] = useState<Error | null>(null);
  // Each load gets a number; an older answer never overwrites a newer session (e.g. login during boot).
  const generation = useRef(0);
  // One GET /api/me per token at a time: a load that starts while another for the same token is on
  // its way shares its answer (React's StrictMode mounts effects twice in development; a storage
  // event can arrive during boot), so a page load asks for the profile once.
  const inflight = useRef<{ token: string; promise: Promise<User> } | null>(null);
  const profileFor = useCallback((t: string): Promise<User> => {
    if (inflight.current?.token === t) return inflight.current.promise;
    const promise = fetchProfile().finally(() => {
      if (inflight.current?.promise === promise) inflight.current = null;
    });
    inflight.current = { token: t, promise };
    return promise;
  }, []);

  const loadProfile = useCallback(async () => {
    const gen = ++generation.current;
    const stored = tokenStore.get();
    setToken(stored);
    if (!stored) {
      setUser(null);
      setProfileError(null);
      setLoading(false);
      return;
    }
    try {
      const u = await profileFor(stored);
      if (gen !== generation.current) return;
      setUser(u);
      setProfileError(null);
    } catch (err) {
      if (gen !== generation.current) return;
      if (err instanceof ApiError && err.status === 401) {
        // Expired or revoked token: forget it silently.
        tokenStore.clear();
        setToken(null);
        setUser(null);
        setProfileError(null);
      } else {
        setUser(null);
        setProfileError(err instanceof Error ? err : new Error(String(err)));
      }
    } finally {
      if (gen === generation.current) setLoading(false);
    }
  }, [profileFor]);

  useEffect(() => {
    void loadProfile();
  }, [loadProfile]);

  // Another tab signed in or out.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === null || e.key === TOKEN_KEY) void loadProfile();
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [loadProfile]);

  const completeLogin = useCallback(async (body: unknown, remember = true): Promise<User> => {
    const t = tokenOf(body);
    if (!t) throw new ApiError(200, 'missing_token', 'missing_token');
    tokenStore.set(t, remember);
    let u: User;
    try {
      u = await fetchProfile();
    } catch (err) {
      // All or nothing: without the profile the sign-in did not complete.
      tokenStore.clear();
      throw err instanceof ApiError && err.code === 'profile_unavailable'
        ? err
        : new ApiError(err instanceof ApiError ? err.status : 0, 'profile_unavailable', 'Não foi possível carregar seus dados.');
    }
    generation.current++; // a profile load still running from before the sign-in is now stale
    setToken(tokenStore.get());
    setUser(u);
    setProfileError(null);
    setLoading(false);
    return u;
  }, []);

  const login = useCallback(
    async (email: string, password: string, remember = true): Promise<LoginOutcome> => {
      // `remember` also decides the e-book download cookie's life (the browser's session, or the token's).
      const body = await api.post('/auth/login', { email, password, remember }, { auth: false });
      // Two-factor sign-in on: no session yet, the login page asks for the code (POST /auth/login/mfa).
      const mfaToken = mfaTokenOf(body);
      if (mfaToken) return { mfaToken };
      return { user: await completeLogin(body, remember) };
    },
    [completeLogin],
  );

  const logout = useCallback(async () => {
    generation.current++;
    // The request reads the token as it starts; the local session then ends at once, whatever the
    // server's answer and however long it takes (a slow phone connection must not keep a person
    // signed in on a shared device while 'Sair' spins).
    const revoked = api.post('/auth/logout').catch(() => undefined);
    tokenStore.clear();
    setToken(null);
    setUser(null);
    setProfileError(null);
    setLoading(false);
    await revoked;
  }, []);

  const value = useMemo<AuthState>(
    () => ({
      loading,
      user,
      token,
      isAuthenticated: !!(user && (user.email || user.id)) || !!token,
      isAdmin: isAdminUser(user),
      profileError,
      login,
      completeLogin,
      logout,
      refresh: loadProfile,
    }),
    [loading, user, token, profileError, login, completeLogin, logout, loadProfile],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
