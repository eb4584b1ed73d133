import { useCallback, useEffect, useRef, useState } from 'react';
import { autopayApi, type AutopayClaims, type AutopayProfile, type AutopayCardConfig } from './autopayApi';

export interface AutopayData {
  profile: AutopayProfile;
  claims: AutopayClaims;
  config: AutopayCardConfig;
}

/**
 * What the autopay dialog needs, read together each time it opens (`enabled`): the saved profile,
 * the claims on the numbers and which card tokenizer to use. `reload()` reads them again.
 */
export function useAutopayData(enabled: boolean) {
  const [data, setData] = useState<AutopayData | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const ctrl = useRef<AbortController | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const c = new AbortController();
    ctrl.current = c;
    setLoading(true);
    setError(null);
    Promise.all([autopayApi.profile(c.signal), autopayApi.claims(c.signal), autopayApi.cardConfig(c.signal)])
      .then(([profile, claims, config]) => {
        if (!c.signal.aborted) setData({ profile, claims, config });
      })
      .catch((err) => {
        if (!c.signal.aborted) setError(err);
      })
      .finally(() => {
        if (!c.signal.aborted) setLoading(false);
      });
    return () => c.abort();
  }, [enabled, attempt]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  return { data, error, loading, reload };
}

/** The saved profile alone, for the summary card of /conta. */
export function useAutopayProfile() {
  const [profile, setProfile] = useState<AutopayProfile | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const c = new AbortController();
    setLoading(true);
    autopayApi
      .profile(c.signal)
      .then((p) => {
        if (c.signal.aborted) return;
        setProfile(p);
        setError(null);
      })
      .catch((err) => {
        if (!c.signal.aborted) setError(err);
      })
      .finally(() => {
        if (!c.signal.aborted) setLoading(false);
      });
    return () => c.abort();
  }, [attempt]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  return { profile, error, loading, reload };
}
