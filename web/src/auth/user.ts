/** The signed-in person, as GET /api/me describes them (account spec §3, User). */
export interface User {
  id: number | string;
  name: string;
  email: string;
  phone: string | null;
  cpf: string | null;
  birthdate: string | null;
  role: string | null;
  is_admin: boolean;
  created_at: string | null;
  coupon_code: string | null;
  /** Two-factor sign-in (TOTP) is on for this account. */
  mfa_enabled: boolean;
  /** An administrator who must turn two-factor sign-in on before using the console (ADMIN_MFA_REQUIRED). */
  mfa_enrollment_required: boolean;
}

type Raw = Record<string, unknown>;

const str = (...values: unknown[]): string | null => {
  for (const v of values) if (typeof v === 'string' && v.trim()) return v;
  return null;
};

/** Accepts `{user}` or the user object itself, and the field aliases the spec lists. */
export function toUser(body: unknown): User | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Raw;
  const u = (b.user && typeof b.user === 'object' ? b.user : b) as Raw;
  const id = u.id ?? u.user_id;
  const email = str(u.email);
  if ((typeof id !== 'number' && typeof id !== 'string') || !email) return null;
  return {
    id,
    email,
    name: str(u.name, u.fullName, u.nome) ?? '',
    phone: str(u.phone, u.telefone),
    cpf: str(u.cpf, u.document, u.document_number),
    birthdate: str(u.birthdate),
    role: str(u.role),
    is_admin: u.is_admin === true,
    created_at: str(u.created_at),
    coupon_code: str(u.coupon_code),
    mfa_enabled: u.mfa_enabled === true,
    mfa_enrollment_required: u.mfa_enrollment_required === true,
  };
}

/** Admin = is_admin or role admin (the server decides both; account spec §6). */
export const isAdminUser = (u: User | null | undefined): boolean => !!u && (u.is_admin || (u.role ?? '').toLowerCase() === 'admin');

/** The token field of a login answer: token, access_token or jwt (storefront spec §3). */
export function tokenOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Raw;
  return str(b.token, b.access_token, b.jwt);
}

/** The first step of a two-factor sign-in: the password was right, a code is still due. */
export function mfaTokenOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Raw;
  return b.mfa_required === true ? str(b.mfa_token) : null;
}
