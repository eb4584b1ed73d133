import type { Conn, Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import { audit } from '../platform/audit';
import { recordBooksCheck } from '../platform/metrics';
import type { BooksCheck, BooksCheckFn } from '../platform/books';
import { paymentsBooks } from '../payments/books';
import { drawsBooks } from '../draws/books';
import { resultsBooks } from '../results/books';
import { couponsBooks } from '../coupons/books';

/**
 * The books (RULES B1): every module's read-only checks, composed here and run in one read-only,
 * repeatable-read transaction, so they all see the same snapshot even while sales, refunds and
 * expiries go on. `cotaverde audit books` prints the report; the worker runs it nightly
 * (job `books.audit`) and, when a check fails, logs an error and writes an audit entry.
 */
export const BOOKS_CHECKS: readonly BooksCheckFn[] = [paymentsBooks, drawsBooks, resultsBooks, couponsBooks];

export interface BooksReport {
  ok: boolean;
  checks: BooksCheck[];
}

export interface BooksService {
  /** Runs every check; with `conn` (a transaction of the caller), inside it. */
  check(conn?: Conn): Promise<BooksReport>;
  /** The nightly run: the report, plus an error log and an audit entry when it fails. */
  runNightly(): Promise<BooksReport>;
}

export function createBooksService(deps: { db: Db; logger: Logger }): BooksService {
  const { db, logger } = deps;

  async function runAll(conn: Conn): Promise<BooksReport> {
    const checks: BooksCheck[] = [];
    for (const fn of BOOKS_CHECKS) checks.push(...[await fn(conn)].flat());
    return { ok: checks.every((c) => c.ok), checks };
  }

  const service: BooksService = {
    check(conn) {
      if (conn) return runAll(conn);
      return db.transaction((trx) => runAll(trx), { isolationLevel: 'repeatable read', readOnly: true });
    },
    async runNightly() {
      const report = await service.check();
      recordBooksCheck(report.ok); // the BooksCheckFailing alert reads this gauge (docs/DEPLOY.md)
      const failed = report.checks.filter((c) => !c.ok);
      if (!failed.length) {
        logger.info({ checks: report.checks.length }, 'books balance');
        return report;
      }
      logger.error({ failed: failed.map((c) => ({ name: c.name, count: c.count, ids: c.ids.slice(0, 20) })) }, 'books do not balance');
      await audit(db, {
        actor: 'system',
        action: 'books.failed',
        entity: 'books',
        data: { failed: failed.map((c) => ({ name: c.name, count: c.count, ids: c.ids, ...(c.note ? { note: c.note } : {}) })) },
      });
      return report;
    },
  };
  return service;
}
