import { useCallback, useState } from 'react';
import type { RegisterInput } from '../../../../src/shared/validation';
import { api } from '../../api/client';

/** POST /api/auth/register with the register payload (account spec §3). */
export function useRegister() {
  const [submitting, setSubmitting] = useState(false);
  const register = useCallback(async (input: RegisterInput) => {
    setSubmitting(true);
    try {
      await api.post('/auth/register', input, { auth: false });
    } finally {
      setSubmitting(false);
    }
  }, []);
  return { register, submitting };
}
