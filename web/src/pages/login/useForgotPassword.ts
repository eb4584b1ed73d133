import { useCallback, useState } from 'react';
import { api } from '../../api/client';

/** POST /api/auth/reset-password {email}: the server e-mails a single-use link (DECISIONS.md, Accounts, "Password reset"). */
export function useForgotPassword() {
  const [sending, setSending] = useState(false);
  const request = useCallback(async (email: string) => {
    setSending(true);
    try {
      await api.post('/auth/reset-password', { email }, { auth: false });
    } finally {
      setSending(false);
    }
  }, []);
  return { request, sending };
}
