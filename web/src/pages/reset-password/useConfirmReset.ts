import { useCallback, useState } from 'react';
import { api } from '../../api/client';

/** POST /api/auth/reset-password/confirm {token, password} (a single-use link valid for 60 minutes: DECISIONS.md, Accounts, "Password reset"). */
export function useConfirmReset() {
  const [saving, setSaving] = useState(false);
  const confirm = useCallback(async (token: string, password: string) => {
    setSaving(true);
    try {
      await api.post('/auth/reset-password/confirm', { token, password }, { auth: false });
    } finally {
      setSaving(false);
    }
  }, []);
  return { confirm, saving };
}
