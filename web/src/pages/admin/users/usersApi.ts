import { api } from '../../../api/client';
import type {
  ActiveClientList,
  AdminUserCreated,
  AdminUserList,
  AdminUserRemoved,
  AdminUserSaved,
  AssignNumbersResult,
  DrawStatus,
} from '../../../api/types';

/** The registry's page size (account spec §9: user list page size 500). */
export const USERS_PAGE_SIZE = 500;

export interface UserPayload {
  name: string;
  email: string;
  phone: string;
  is_admin: boolean;
  coupon_code?: string | null;
  coupon_value_cents: number;
  coupon_reason?: string;
  set_default_password?: boolean;
}

/** A cell of GET /api/admin/draws/{id}/board. */
export interface AdminBoardCell {
  n: number;
  state: string;
  status: 'available' | 'reserved' | 'sold';
  owner_user_id: number | null;
  owner_name: string | null;
}
export interface AdminBoard {
  draw_id: number;
  status: DrawStatus;
  total_numbers: number;
  numbers: AdminBoardCell[];
}

/** The admin calls of the customer registry and the active-balance list (account spec §7 "Admin"). */
export const usersApi = {
  list: (o: { search?: string; offset?: number }, signal?: AbortSignal) =>
    api.get<AdminUserList>('/api/admin/users', {
      query: { limit: USERS_PAGE_SIZE, offset: o.offset ?? 0, search: o.search || undefined },
      signal,
    }),
  create: (body: UserPayload) => api.post<AdminUserCreated>('/api/admin/users', { ...body, set_default_password: true }),
  update: (id: number, body: Partial<UserPayload>) => api.put<AdminUserSaved>(`/api/admin/users/${id}`, body),
  remove: (id: number) => api.delete<AdminUserRemoved>(`/api/admin/users/${id}`),
  assign: (userId: number, body: { draw_id: number; numbers: number[]; override_max_per_user: boolean }) =>
    api.post<AssignNumbersResult>(`/api/admin/users/${userId}/assign-numbers`, { user_id: userId, ...body }),
  openDraw: () =>
    api
      .get<{ items: Array<{ id: number; title: string }> }>('/api/admin/draws', { query: { status: 'open', limit: 1 } })
      .then((r) => r.items[0] ?? null),
  board: (drawId: number, signal?: AbortSignal) => api.get<AdminBoard>(`/api/admin/draws/${drawId}/board`, { signal }),
  activeClients: (offset: number, signal?: AbortSignal) =>
    api.get<ActiveClientList>('/api/admin/clients/active', { query: { limit: 500, offset }, signal }),
};

export { parseNumbers, reaisToCents } from './parse';
