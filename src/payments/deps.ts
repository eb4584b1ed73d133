import type { Config } from '../platform/config';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { JobQueue } from '../platform/queue';
import type { RateLimits } from '../platform/rate-limit';
import type { VouchersService } from '../draws/vouchers';
import type { DrawsService } from '../draws/service';
import type { ReservationsService } from '../draws/reservations';
import type { PaymentProvider } from './providers/types';
import type { Receipts } from './receipt';

/** What the payments module is built from (one factory: createPaymentsService). */
export interface PaymentsDeps {
  db: Db;
  config: Config;
  logger: Logger;
  queue: JobQueue;
  rateLimits: RateLimits;
  vouchers: VouchersService;
  draws: DrawsService;
  reservations: ReservationsService;
  provider: PaymentProvider;
  sandbox?: { approve(providerPaymentId: string): Promise<boolean> } | null;
  /** Told when a payment's state changed (committed): the buyer's cached reads go on every web process (platform/user-read-cache.ts). */
  userData?: { userDataChanged(userId: number): Promise<void> };
  /** The purchase receipt mail written on fulfilment. */
  receipts?: Receipts;
}
