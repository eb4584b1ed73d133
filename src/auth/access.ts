import type { Config } from '../platform/config';
import { DomainError, errors } from '../platform/errors';
import type { SessionUser } from '../platform/http/context';

export const MFA_ENROLLMENT_REQUIRED = 'mfa_enrollment_required';
export const MFA_ENROLLMENT_MESSAGE = 'Ative a verificação em duas etapas para usar o painel.';

/**
 * The one decision on whether a session may use the admin console (every /api/admin route, the
 * /ops link and the /ops dashboard): null when it may, else the error to answer.
 * - not an admin (read from the database for this request, RULES U1) → 403 forbidden;
 * - an admin without two-factor sign-in while ADMIN_MFA_REQUIRED is on → 403
 *   `mfa_enrollment_required`: the session still reaches its enrolment (POST /api/auth/mfa/setup
 *   and /enable), GET /api/me and logout, which are not admin routes.
 */
export function adminAccessRefusal(
  user: Pick<SessionUser, 'isAdmin' | 'mfaEnabled'>,
  config: Pick<Config, 'adminMfaRequired'>,
): DomainError | null {
  if (!user.isAdmin) return errors.forbidden('Acesso restrito a administradores.');
  if (config.adminMfaRequired && !user.mfaEnabled) return new DomainError('forbidden', MFA_ENROLLMENT_REQUIRED, MFA_ENROLLMENT_MESSAGE);
  return null;
}

/** GET /api/me's `mfa_enrollment_required`: an admin whom the rule above keeps out until they turn two factors on. */
export function mfaEnrollmentRequired(
  user: Pick<SessionUser, 'isAdmin' | 'mfaEnabled'>,
  config: Pick<Config, 'adminMfaRequired'>,
): boolean {
  return adminAccessRefusal(user, config)?.code === MFA_ENROLLMENT_REQUIRED;
}
