import type { Conn } from './db';

export interface AuditEntry {
  actorUserId?: number | null;
  actor?: 'user' | 'admin' | 'cli' | 'system';
  action: string;
  entity: string;
  entityId?: string | number | null;
  data?: Record<string, unknown>;
}

/** Appends to audit_log in the caller's transaction. */
export async function audit(conn: Conn, e: AuditEntry): Promise<void> {
  await conn('audit_log').insert({
    actor_user_id: e.actorUserId ?? null,
    actor: e.actor ?? 'user',
    action: e.action,
    entity: e.entity,
    entity_id: e.entityId == null ? null : String(e.entityId),
    data: JSON.stringify(e.data ?? {}),
  });
}
