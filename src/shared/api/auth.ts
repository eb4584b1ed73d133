/**
 * Sign-in, two-factor sign-in (TOTP) and the ADMIN_EMAILS proof, as the API answers them.
 * Types only: no runtime imports, so the web bundle can import it.
 */

/** The account as GET /api/me, login and registration describe it. */
export interface PublicUser {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  cpf: string | null;
  birthdate: string | null;
  role: 'customer' | 'admin';
  is_admin: boolean;
  coupon_code: string | null;
  created_at: string;
}

/** GET /api/me → {user: MeUser}. */
export interface MeUser extends PublicUser {
  /** Two-factor sign-in is on. */
  mfa_enabled: boolean;
  /** An admin kept out of the console until they turn two factors on (ADMIN_MFA_REQUIRED). */
  mfa_enrollment_required: boolean;
}

/** POST /api/auth/login {email, password, remember?} and POST /api/auth/login/mfa → 200 (plus the session cookie). */
export interface LoginSession {
  token: string;
  user: PublicUser;
}

/** POST /api/auth/login for an account with two factors on → 200, no session and no cookie yet. */
export interface MfaChallenge {
  mfa_required: true;
  /** For POST /api/auth/login/mfa {mfa_token, code}: 5 minutes, 5 tries, single use. */
  mfa_token: string;
}

export type LoginAnswer = LoginSession | MfaChallenge;

/** POST /api/auth/mfa/setup (signed in) → 200. */
export interface MfaSetup {
  /** Base32, for typing into the app by hand. */
  secret: string;
  /** otpauth://totp/Cota%20Verde:<email>?secret=…&issuer=Cota%20Verde */
  otpauth_url: string;
  /** data:image/png;base64,… (the otpauth URL as a QR code). */
  qr_code_data_url: string;
}

/** POST /api/auth/mfa/enable {code} → 200: 10 single-use codes `xxxxx-xxxxx`, shown only here. */
export interface MfaEnabled {
  recovery_codes: string[];
}

/** GET /api/auth/confirm-admin-email?token=… → 200 (an unused, unexpired link; nothing changes). */
export interface AdminEmailCheck {
  valid: true;
  email: string;
}

/** POST /api/auth/confirm-admin-email {token} (signed in as the link's account) → 200. */
export interface AdminEmailConfirmed {
  ok: true;
  user_id: number;
  email: string;
}

/** `cotaverde users mfa-reset <email> --json`. */
export interface MfaResetResult {
  id: number;
  email: string;
  mfa_was_enabled: boolean;
  sessions_ended: number;
}

/** Error codes of these routes (besides validation_error, unauthenticated, rate_limited). */
export type AuthErrorCode =
  | 'invalid_code'
  | 'mfa_token_expired'
  | 'mfa_already_enabled'
  | 'mfa_setup_required'
  | 'mfa_not_enabled'
  | 'mfa_enrollment_required'
  | 'invalid_token'
  | 'wrong_account';
