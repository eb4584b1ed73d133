import { api } from '../../../api/client';
import type { AuditPage } from '../../../api/types';

export interface AuditFilters {
  entity?: string;
  entity_id?: string;
}

/** GET /api/admin/audit: newest first, filtered, a page at a time. */
export const auditApi = {
  list: (f: AuditFilters, offset: number, limit: number, signal?: AbortSignal) =>
    api.get<AuditPage>('/api/admin/audit', {
      query: { entity: f.entity || undefined, entity_id: f.entity_id || undefined, limit, offset },
      signal,
    }),
};
