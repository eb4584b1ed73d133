/**
 * Operations shapes, declared once: the server returns them and the web imports them.
 * Types only: no runtime imports.
 */

/** POST /api/admin/ops/link: a one-time, short-lived address that opens the queue dashboard. */
export interface OpsLink {
  /** Absolute address of /ops/login?token=…; open it in a new tab (it sets the /ops cookie). */
  url: string;
  /** ISO date-time after which the address no longer works. */
  expires_at: string;
}

/** One job type's counts (CLI `queues status --json`). */
export interface QueueJobTypeCounts {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface QueueFailedJob {
  id: string;
  name: string;
  attempts: number;
  failed_at: string | null;
  error: string;
}

export interface QueueStatus {
  types: QueueJobTypeCounts[];
  failed: QueueFailedJob[];
}

/** One backup run (GET /api/admin/ops/backups): nightly (the worker) or manual (`cotaverde db backup`). */
export interface BackupRunView {
  id: number;
  kind: 'nightly' | 'manual';
  startedAt: string;
  finishedAt: string;
  ok: boolean;
  /** The file's name (never the server's folder). */
  file: string | null;
  bytes: number | null;
  tables: number | null;
  rows: number | null;
  /** The books check at the backup's instant. */
  booksOk: boolean | null;
  /** The migration level (last migration) of the backup. */
  migration: string | null;
  error: string | null;
}

/** GET /api/admin/ops/backups: the console's operations view of the backups. */
export interface BackupStatus {
  /** False when BACKUP_DISABLED: the platform backs the database up. */
  enabled: boolean;
  keepDaily: number;
  keepWeekly: number;
  last: BackupRunView | null;
  lastSuccess: BackupRunView | null;
  /** The latest runs, newest first. */
  recent: BackupRunView[];
}
