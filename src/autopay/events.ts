import type { DomainEvents } from '../platform/events';
import type { AutopayDeps } from './service';

/** autopay.charge's options: one job per draw (its id `autopay-charge-{drawId}` deduplicates), retried by BullMQ. */
const CHARGE_JOB_OPTS = { attempts: 10, backoff: { type: 'exponential', delay: 2_000 } };

export interface AutopayEvents {
  /**
   * Outbox handler of `draw.opened` (RULES D5, A2): the draw's charge job. Safe to run again for the
   * same event (the job id deduplicates); throws while Redis is away, so the event stays to relay.
   */
  onDrawOpened(event: DomainEvents['draw.opened']): Promise<void>;
  /** Draws whose runs still wait (a job lost with Redis, a crash): their charge job again (deduplicated). */
  requeueWaiting(): Promise<number>;
}

export function createAutopayEvents(deps: Pick<AutopayDeps, 'db' | 'queue'>): AutopayEvents {
  const { db, queue } = deps;
  return {
    async onDrawOpened(event) {
      const drawId = Number(event?.drawId);
      if (!Number.isInteger(drawId) || drawId <= 0) return;
      await queue.enqueueUnique('autopay.charge', { drawId }, `autopay-charge-${drawId}`, CHARGE_JOB_OPTS);
    },

    async requeueWaiting() {
      const waiting: Array<{ draw_id: number }> = await db('autopay_runs')
        .whereIn('status', ['held', 'charging'])
        .distinct('draw_id')
        .limit(100);
      for (const w of waiting) {
        const drawId = Number(w.draw_id);
        await queue.enqueueUnique('autopay.charge', { drawId }, `autopay-charge-${drawId}`, CHARGE_JOB_OPTS);
      }
      return waiting.length;
    },
  };
}
