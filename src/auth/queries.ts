import type { Conn } from '../platform/db';
import type { UserRow } from './serializers';

export const USER_COLUMNS = [
  'id',
  'name',
  'email',
  'phone',
  'cpf',
  'birthdate',
  'password_hash',
  'role',
  'is_admin',
  'coupon_code',
  'admin_email_proved',
  'created_at',
];

export function findUserByEmail(conn: Conn, email: string): Promise<UserRow | undefined> {
  return conn('users').select(USER_COLUMNS).whereRaw('lower(email) = lower(?)', [email]).first();
}

export function findUserById(conn: Conn, id: number): Promise<UserRow | undefined> {
  return conn('users').select(USER_COLUMNS).where({ id }).first();
}

export async function insertUser(conn: Conn, u: Partial<UserRow> & { name: string; email: string }): Promise<UserRow> {
  const [row] = await conn('users').insert(u).returning(USER_COLUMNS);
  return row;
}

export async function findSession(conn: Conn, tokenHash: string) {
  return conn('auth_tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .leftJoin('user_mfa as m', 'm.user_id', 'u.id')
    .where('t.token_hash', tokenHash)
    .whereNull('t.revoked_at')
    .where('t.expires_at', '>', conn.fn.now())
    .first(
      't.id as token_id',
      't.expires_at',
      'u.id',
      'u.name',
      'u.email',
      'u.role',
      'u.is_admin',
      'u.admin_email_proved',
      'm.enabled_at as mfa_enabled_at',
    );
}

export async function insertSession(conn: Conn, userId: number, tokenHash: string, ttlDays: number, userAgent?: string) {
  const [row] = await conn('auth_tokens')
    .insert({
      user_id: userId,
      token_hash: tokenHash,
      expires_at: conn.raw(`now() + make_interval(days => ?)`, [ttlDays]),
      user_agent: userAgent?.slice(0, 300) ?? null,
    })
    .returning('id');
  return row.id as number;
}

/** Revokes one session; the user ids of what it revoked (none when it was already revoked). */
export async function revokeSession(conn: Conn, tokenId: number): Promise<number[]> {
  const rows: Array<{ user_id: number }> = await conn('auth_tokens')
    .where({ id: tokenId })
    .whereNull('revoked_at')
    .update({ revoked_at: conn.fn.now() })
    .returning('user_id');
  return rows.map((r) => r.user_id);
}

export function revokeAllSessions(conn: Conn, userId: number) {
  return conn('auth_tokens').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: conn.fn.now() });
}

export function listUsers(conn: Conn, opts: { limit: number; offset: number; search?: string }) {
  const q = conn('users').select(USER_COLUMNS).orderBy('id', 'asc').limit(opts.limit).offset(opts.offset);
  if (opts.search) {
    const s = `%${opts.search.toLowerCase()}%`;
    q.where((w) =>
      w
        .whereRaw('lower(name) like ?', [s])
        .orWhereRaw('lower(email) like ?', [s])
        .orWhere('phone', 'like', s)
        .orWhereRaw('lower(coupon_code) like ?', [s]),
    );
  }
  return q as Promise<UserRow[]>;
}

/** Whether two-factor sign-in is on for the account. */
export async function mfaEnabled(conn: Conn, userId: number): Promise<boolean> {
  const row = await conn('user_mfa').where({ user_id: userId }).whereNotNull('enabled_at').first('user_id');
  return !!row;
}

/** Everything two-factor sign-in keeps about an account (turned off, reset, or the account forgotten). */
export async function deleteMfa(conn: Conn, userId: number) {
  await conn('mfa_challenges').where({ user_id: userId }).del();
  await conn('mfa_recovery_codes').where({ user_id: userId }).del();
  return conn('user_mfa').where({ user_id: userId }).del();
}
