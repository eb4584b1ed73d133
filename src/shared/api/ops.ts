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
