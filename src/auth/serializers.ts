export interface UserRow {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  cpf: string | null;
  birthdate: string | null;
  password_hash: string | null;
  role: 'customer' | 'admin';
  is_admin: boolean;
  coupon_code: string | null;
  /** The ADMIN_EMAILS address this account proved (confirmation link), lowercased; null if none. */
  admin_email_proved: string | null;
  created_at: Date;
}

/**
 * Admin = is_admin, role admin (both set by `users create-admin` and by admins), or an e-mail
 * listed in ADMIN_EMAILS that this account proved it owns (a confirmation link mailed to it):
 * registering a listed address makes no one admin (RULES U3).
 */
export function isAdminRow(row: Pick<UserRow, 'is_admin' | 'role' | 'email' | 'admin_email_proved'>, adminEmails: string[]): boolean {
  if (row.is_admin || row.role === 'admin') return true;
  const email = row.email.toLowerCase();
  return adminEmails.includes(email) && row.admin_email_proved === email;
}

/** The account as its owner sees it (GET /api/me, login). Never the hash. */
export function serializeUser(row: UserRow, adminEmails: string[]) {
  const admin = isAdminRow(row, adminEmails);
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    cpf: row.cpf,
    birthdate: row.birthdate,
    role: admin ? 'admin' : row.role,
    is_admin: admin,
    coupon_code: row.coupon_code,
    created_at: row.created_at,
  };
}
export type PublicUser = ReturnType<typeof serializeUser>;

export { initialsOf } from '../shared/initials';
