import type { Config } from '../platform/config';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { JobQueue } from '../platform/queue';
import type { DrawsService } from '../draws/service';
import type { PaymentsService } from '../payments/service';
import type { PaymentProvider } from '../payments/providers/types';
import type { SandboxProvider } from '../payments/providers/sandbox';
import type { AutopayRunsPage } from '../shared/api/autopay';
import type { DomainEvents } from '../platform/events';
import { createProfiles, type Profiles } from './profiles';
import { createCharging, type ChargePass, type ChargeSummary } from './charging';
import { createAutopayEvents } from './events';
import { listRuns } from './runs';

/**
 * Autopay (RULES A1 – A6): the customer's profile and saved card (profiles.ts), the holds made when
 * a main draw opens (holds.ts, wired at the composition root), charging the runs (charging.ts), the
 * outbox handler that starts charging (events.ts) and the admin's list of runs (runs.ts).
 */
export interface AutopayDeps {
  db: Db;
  config: Config;
  logger: Logger;
  queue: JobQueue;
  draws: DrawsService;
  payments: PaymentsService;
  provider: PaymentProvider;
  /** The sandbox provider when it is the active one (tokenizer, saved cards), else null. */
  sandbox: SandboxProvider | null;
  /** How many runs of one draw are charged at once (each holds up to 2 DB connections). */
  chargeConcurrency?: number;
}

/** The card profiles' calls (profiles.ts), then charging, the outbox handlers and the admin list. */
export interface AutopayService extends Profiles {
  /**
   * Job autopay.charge: charges every due run of the draw. While retries wait (transient
   * failures), `retryAt` says when to come back; the job handler re-delays the job.
   */
  chargeDraw(drawId: number): Promise<ChargePass>;
  /** Outbox handler of `draw.opened` (registered in jobs/outbox.ts): the draw's autopay.charge job. */
  onDrawOpened(event: DomainEvents['draw.opened']): Promise<void>;
  /** Part of job outbox.relay: draws with runs still pending get their charge job again (deduplicated). */
  requeueWaiting(): Promise<number>;
  listRuns(query: unknown): Promise<AutopayRunsPage>;
  /** CLI `autopay run <drawId>`: charges what is still pending now (never twice). */
  runDraw(drawId: unknown): Promise<ChargeSummary>;
}

export function createAutopayService(deps: AutopayDeps): AutopayService {
  const profiles = createProfiles(deps);
  const charging = createCharging(deps);
  const events = createAutopayEvents(deps);
  return {
    forgetUser: profiles.forgetUser,
    cardConfig: profiles.cardConfig,
    tokenize: profiles.tokenize,
    get: profiles.get,
    save: profiles.save,
    cancel: profiles.cancel,
    claims: profiles.claims,
    chargeDraw: charging.chargeDraw,
    runDraw: charging.runDraw,
    onDrawOpened: events.onDrawOpened,
    requeueWaiting: events.requeueWaiting,
    listRuns: (query) => listRuns(deps.db, query),
  };
}
