/**
 * Audit log shapes of the admin API (GET /api/admin/audit), declared once: src/audit serializes
 * them and the admin console (web/src/api/types.ts) re-exports them. Types only.
 */

export type AuditActor = 'user' | 'admin' | 'cli' | 'system' | (string & {});

/** One entry of the audit log, newest first in a list. */
export interface AuditEntryView {
  id: number;
  created_at: string;
  actor: AuditActor;
  actor_user_id: number | null;
  /** The acting user's name and e-mail when the user still exists. */
  actor_name: string | null;
  actor_email: string | null;
  /** e.g. draw.created, draw.status_changed, config.updated. */
  action: string;
  /** e.g. draw, app_config, user, infoproduct, payment. */
  entity: string;
  entity_id: string | null;
  /** data.before / data.after when the entry recorded them, else null. */
  before: unknown;
  after: unknown;
  /** The whole recorded data (before/after plus any other fields, e.g. sold). */
  data: Record<string, unknown>;
}

/** GET /api/admin/audit. */
export interface AuditPage {
  items: AuditEntryView[];
  hasMore: boolean;
  limit: number;
  offset: number;
}
