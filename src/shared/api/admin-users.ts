/**
 * Admin console shapes of the customer registry, the number assignment and the customers with
 * active balance (account spec), declared once: the server (src/auth/admin-users.ts,
 * src/coupons/admin.ts) returns them and the web client re-exports them. Types only.
 * Money in cents; times are ISO-8601 strings.
 */

/** A row of GET /api/admin/users (the spec's table: ID, NOME, EMAIL, CELULAR, CUPOM, SALDO, ADMIN, CRIADO EM). */
export interface AdminUser {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  is_admin: boolean;
  role: 'customer' | 'admin';
  coupon_code: string | null;
  /** The live coupon balance (the customer area's rule). */
  coupon_value_cents: number;
  coupon_valid_until: string | null;
  created_at: string;
}

/** GET /api/admin/users?search=&limit=500&offset=N */
export interface AdminUserList {
  items: AdminUser[];
  hasMore: boolean;
  limit: number;
  offset: number;
}

/**
 * POST /api/admin/users → 201: the saved user itself (account spec §7, the fields its form
 * reads at the top level) and the temporary password, shown once, never stored in clear.
 */
export interface AdminUserCreated extends AdminUser {
  temporary_password: string;
  /** 'Salvo com sucesso. Senha padrão: …' */
  message: string;
}

/** PUT /api/admin/users/{id}: the saved user itself. */
export interface AdminUserSaved extends AdminUser {
  message: string;
  /** Present when the balance changed: the ledger adjustment that did it. */
  coupon_adjustment: { before_cents: number; after_cents: number; cents: number } | null;
}

/** DELETE /api/admin/users/{id}: erased when it had no money records, else anonymized (LGPD). */
export interface AdminUserRemoved {
  ok: true;
  id: number;
  outcome: 'deleted' | 'anonymized';
  message: string;
}

/** POST /api/admin/users/{id}/assign-numbers {draw_id, numbers, override_max_per_user?} */
export interface AssignNumbersResult {
  ok: true;
  message: string;
  user_id: number;
  draw_id: number;
  numbers: number[];
  payment_id: number;
  sold_out: boolean;
  next_draw_id: number | null;
}

/** A row of GET /api/admin/clients/active ('Clientes com saldo ativo'). */
export interface ActiveClient {
  user_id: number;
  name: string;
  email: string;
  created_at: string;
  purchases_count: number;
  coupon_value_cents: number;
  /** The balance in reais (the spec's 'value' column). */
  total_brl: number;
  last_buy: string | null;
  wins: number;
  coupon: string | null;
  valid_until: string | null;
  days_to_expire: number | null;
}

export interface ActiveClientList {
  items: ActiveClient[];
  hasMore: boolean;
  limit: number;
  offset: number;
}
