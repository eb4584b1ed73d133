import { createElement, type ReactNode } from 'react';
import type { LoginAnswer, MfaEnabled, MfaSetup } from '../../../src/shared/api/auth';
import { api, ApiError } from '../api/client';
export { MFA_MESSAGES, recoveryCode, recoveryRule, totpDigits, totpRule } from './format';

/** Two-factor sign-in calls (TOTP and single-use recovery codes). */
export const mfaApi = {
  /** A new secret for the authenticator app (pending until enabled). */
  setup: () => api.post<MfaSetup>('/auth/mfa/setup'),
  /** The first code from the app turns it on; the answer carries the recovery codes, shown once. */
  enable: (code: string) => api.post<MfaEnabled>('/auth/mfa/enable', { code }),
  disable: (code: string) => api.post<unknown>('/auth/mfa/disable', { code }),
  /** Second step of the sign-in: answers like POST /auth/login ({token, user}). */
  verifyLogin: (mfaToken: string, code: string) => api.post<LoginAnswer>('/auth/login/mfa', { mfa_token: mfaToken, code }, { auth: false }),
};

/**
 * Form.Item props that show the server's refusal of a code on its field, in a role="alert"
 * element so that a screen reader announces it (antd's own field messages are not announced).
 */
export function codeErrorProps(error: string | null): { validateStatus?: 'error'; help?: ReactNode } {
  return error ? { validateStatus: 'error', help: createElement('span', { role: 'alert' }, error) } : {};
}

/** A wrong, reused or spent code (the code field shows the server's message). */
export const isInvalidCode = (err: unknown): err is ApiError => err instanceof ApiError && err.code === 'invalid_code';
