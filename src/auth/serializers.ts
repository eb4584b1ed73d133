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
  created_at: Date;
}

/** Admin = is_admin, role admin, or an email listed in ADMIN_EMAILS (DESIGN §9). */
export function isAdminRow(row: Pick<UserRow, 'is_admin' | 'role' | 'email'>, adminEmails: string[]): boolean {
  return row.is_admin || row.role === 'admin' || adminEmails.includes(row.email.toLowerCase());
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
