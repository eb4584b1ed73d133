import type { Job } from 'bullmq';

/**
 * The typed map of every background job: name → payload. A job id built from
 * business ids (no ':') deduplicates; the database stays the source of truth and
 * periodic sweeps rebuild what a Redis wipe loses.
 */
export interface JobPayloads {
  /** Deliver one outbox mail. */
  'mail.send': { outboxId: number };
  /** Periodic: enqueue every pending outbox mail (recovers lost jobs). */
  'mail.sweep': SweepPayload;
  /** Release one reservation when its hold expires. */
  'reservation.expire': { reservationId: number };
  /** Periodic: release every reservation past its hold (recovers lost delayed jobs). */
  'reservation.sweep': SweepPayload;
  /** Ask the provider about one pending payment; re-delays itself until the payment settles or expires. */
  'payment.poll': { paymentId: number; attempt?: number };
  /** Periodic: rebuild polling for every pending payment and fulfil any approved-but-unfulfilled one. */
  'payment.reconcile': SweepPayload;
  /**
   * Ask the provider again about approved payments (RULES P11): those due on the decaying schedule,
   * or one payment (`id`), or every one approved in the last `sinceDays` days.
   */
  'payment.recheck': { id?: number; sinceDays?: number };
  /** Coupons: credit missed payments, reverse refunds, write expiries, push changed balances (one user, or everyone hourly). */
  'coupon.sync': { userId?: number };
  /** Periodic: fetch the Lotomania result every closed, undecided draw waits for, and decide it (RULES W1, W4). */
  'results.fetch': { contest?: number };
  /** Outbox relay: undelivered domain events → their jobs (marks dispatched_at); re-queues draws with autopay runs pending. */
  'outbox.relay': SweepPayload;
  /** Charges the autopay runs of one draw, once each; re-delays itself while transient failures wait for a retry. */
  'autopay.charge': { drawId: number };
  /** Nightly: check the books (RULES B1); a failure is logged as an error and audited. */
  'books.audit': Record<string, never>;
  /** Nightly: a backup of the whole database into BACKUP_DIR, then the retention (ops/backups.ts). */
  'backup.nightly': Record<string, never>;
}

/**
 * A sweep's payload. `recovery`: the run the worker queues whenever its Redis
 * connection (re)opens — Redis may have lost every job while it was away, so
 * the sweep rebuilds all pending work from the tables at once (every outbox
 * mail still pending, the expiry job of every active hold, the polling of every
 * pending payment) instead of only what is overdue.
 */
export interface SweepPayload {
  recovery?: boolean;
}

/** The sweeps: what the worker schedules, and runs once more on every (re)connection. */
export const SWEEPS = ['mail.sweep', 'reservation.sweep', 'payment.reconcile', 'outbox.relay'] as const satisfies readonly JobName[];

export type JobName = keyof JobPayloads;
export const JOB_NAMES = [
  'mail.send',
  'mail.sweep',
  'reservation.expire',
  'reservation.sweep',
  'payment.poll',
  'payment.reconcile',
  'payment.recheck',
  'coupon.sync',
  'results.fetch',
  'outbox.relay',
  'autopay.charge',
  'books.audit',
  'backup.nightly',
] as const satisfies readonly JobName[];

// Compile-time check that JOB_NAMES lists every key of JobPayloads.
type Missing = Exclude<JobName, (typeof JOB_NAMES)[number]>;
const _allListed: Missing extends never ? true : never = true;
void _allListed;

/** What runs a job: its payload is the one the map gives its name (a wrong payload type does not compile). */
export type JobHandler<K extends JobName> = (data: JobPayloads[K], job: Job<JobPayloads[K]>, token?: string) => Promise<unknown>;
export type JobHandlers = { [K in JobName]: JobHandler<K> };

/** One registration: a job name and a handler of that job's payload (one member per name). */
export type JobEntry = { [K in JobName]: readonly [K, JobHandler<K>] }[JobName];

/**
 * A registration for buildRegistry, the handler typed by the name: `on('mail.send', async (data) => …)`
 * gives `data` the type `{ outboxId: number }`, and a handler written for another payload does not
 * compile (tests/platform/job-map.typecheck.ts).
 */
export function on<K extends JobName>(name: K, handler: JobHandler<K>): JobEntry {
  // The pair is the member of JobEntry for K; TypeScript cannot pick that member for a generic K.
  return [name, handler] as unknown as JobEntry;
}

/**
 * A schedule the worker keeps in Redis: every `everyMs`, or on a cron `pattern` in the time
 * zone `tz` (BullMQ job schedulers; one run per tick whatever the number of workers).
 */
export type Schedule = { id: string; name: JobName } & (
  { everyMs: number; pattern?: never; tz?: never } | { pattern: string; tz: string; everyMs?: never }
);

/** Lotomania is drawn Mon/Wed/Fri at 20:00 Brasília: results are fetched every 30 minutes from 20:30 to 23:59 on those days, hourly otherwise. */
const BRASILIA = 'America/Sao_Paulo';
export const RESULTS_SCHEDULES: Schedule[] = [
  { id: 'results-fetch-draw-night-first', name: 'results.fetch', pattern: '30 20 * * 1,3,5', tz: BRASILIA },
  { id: 'results-fetch-draw-night', name: 'results.fetch', pattern: '0,30 21-23 * * 1,3,5', tz: BRASILIA },
  { id: 'results-fetch-draw-day', name: 'results.fetch', pattern: '0 0-20 * * 1,3,5', tz: BRASILIA },
  { id: 'results-fetch-hourly', name: 'results.fetch', pattern: '0 * * * 0,2,4,6', tz: BRASILIA },
];

/** Schedules the worker keeps in Redis (upsertJobScheduler on every boot). */
export const SCHEDULES: Schedule[] = [
  { id: 'mail-sweep', name: 'mail.sweep', everyMs: 60_000 },
  { id: 'reservation-sweep', name: 'reservation.sweep', everyMs: 30_000 },
  { id: 'payment-reconcile', name: 'payment.reconcile', everyMs: 60_000 },
  // Approved payments due on their decaying re-check schedule (RULES P11).
  { id: 'payment-recheck', name: 'payment.recheck', everyMs: 10 * 60_000 },
  { id: 'coupon-sync', name: 'coupon.sync', everyMs: 3_600_000 },
  ...RESULTS_SCHEDULES,
  { id: 'outbox-relay', name: 'outbox.relay', everyMs: 2_000 },
  // The books, every night at 03:30 Brasília (a quiet hour, after the draw nights' results).
  { id: 'books-audit-nightly', name: 'books.audit', pattern: '30 3 * * *', tz: BRASILIA },
  // The backup, every night at 04:00 Brasília, after the books (its manifest carries their check too).
  { id: 'backup-nightly', name: 'backup.nightly', pattern: '0 4 * * *', tz: BRASILIA },
];

export const QUEUE_NAME = 'main';

/**
 * Builds the dispatch table from (name, handler) pairs (each made by `on`, so typed by its name): fails at boot when a
 * job of JOB_NAMES has no handler or one name is registered twice.
 */
export function buildRegistry(entries: ReadonlyArray<JobEntry>): JobHandlers {
  const table = new Map<JobName, JobEntry[1]>();
  for (const [name, handler] of entries) {
    if (!JOB_NAMES.includes(name)) throw new Error(`job registry: unknown job '${name}'`);
    if (table.has(name)) throw new Error(`job registry: job '${name}' registered twice`);
    table.set(name, handler);
  }
  const missing = JOB_NAMES.filter((n) => !table.has(n));
  if (missing.length) throw new Error(`job registry: no handler for ${missing.join(', ')}`);
  return Object.fromEntries(table) as JobHandlers;
}
