import { z } from 'zod';
import { PageLimit, PageOffset } from '../platform/validation';
import type { Db } from '../platform/db';
import type { AuditEntryView, AuditPage } from '../shared/api/audit';

/**
 * Reading the audit log (admin console '/admin/auditoria'; RULES U5). Entries are written by every
 * module through platform/audit.ts in the transaction of their change; this reads them, newest
 * first, filtered by entity and entity id, a page at a time.
 */

export const AuditListQuery = z.object({
  entity: z
    .string({ error: 'A entidade deve ser um texto.' })
    .trim()
    .max(60, 'A entidade pode ter no máximo 60 caracteres.')
    .regex(/^[a-z0-9_.-]*$/i, 'Entidade inválida. Use letras, números, ponto, hífen ou sublinhado.')
    .optional(),
  entity_id: z
    .string({ error: 'O id da entidade deve ser um texto.' })
    .trim()
    .max(100, 'O id da entidade pode ter no máximo 100 caracteres.')
    .optional(),
  action: z.string({ error: 'A ação deve ser um texto.' }).trim().max(100, 'A ação pode ter no máximo 100 caracteres.').optional(),
  limit: PageLimit(200, 50),
  offset: PageOffset({ value: 10_000_000, message: 'O deslocamento é alto demais.' }),
});

export interface AuditLogService {
  list(query: unknown): Promise<AuditPage>;
}

interface Row {
  id: string | number;
  created_at: Date;
  actor: string;
  actor_user_id: string | number | null;
  actor_name: string | null;
  actor_email: string | null;
  action: string;
  entity: string;
  entity_id: string | null;
  data: Record<string, unknown> | null;
}

export function serializeAuditEntry(r: Row): AuditEntryView {
  const data = r.data && typeof r.data === 'object' && !Array.isArray(r.data) ? r.data : {};
  return {
    id: Number(r.id),
    created_at: new Date(r.created_at).toISOString(),
    actor: r.actor,
    actor_user_id: r.actor_user_id == null ? null : Number(r.actor_user_id),
    actor_name: r.actor_name,
    actor_email: r.actor_email,
    action: r.action,
    entity: r.entity,
    entity_id: r.entity_id,
    before: 'before' in data ? data.before : null,
    after: 'after' in data ? data.after : null,
    data,
  };
}

export function createAuditLogService(deps: { db: Db }): AuditLogService {
  const { db } = deps;
  return {
    async list(query) {
      const f = AuditListQuery.parse(query);
      const qb = db('audit_log as a')
        .leftJoin('users as u', 'u.id', 'a.actor_user_id')
        // id is a bigserial: a later entry has a larger id, so it orders newest first without ties.
        .orderBy('a.id', 'desc')
        .limit(f.limit + 1)
        .offset(f.offset)
        .select(
          'a.id',
          'a.created_at',
          'a.actor',
          'a.actor_user_id',
          'u.name as actor_name',
          'u.email as actor_email',
          'a.action',
          'a.entity',
          'a.entity_id',
          'a.data',
        );
      if (f.entity) qb.where('a.entity', f.entity);
      if (f.entity_id) qb.where('a.entity_id', f.entity_id);
      if (f.action) qb.where('a.action', f.action);
      const rows: Row[] = await qb;
      return { items: rows.slice(0, f.limit).map(serializeAuditEntry), hasMore: rows.length > f.limit, limit: f.limit, offset: f.offset };
    },
  };
}
