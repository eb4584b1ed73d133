import knex, { type Knex } from 'knex';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { PROJECT_ROOT, RUNNING_BUILT } from './paths';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Either the pool or an open transaction: query functions accept both. */
export type Conn = Knex | Knex.Transaction;

// bigint (int8) columns come back as JS numbers: every id and sum we keep fits.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
// numeric (SUM of int) as number too.
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));
// `date` columns stay as 'YYYY-MM-DD' strings: no timezone shifts on birthdates.
pg.types.setTypeParser(1082, (v) => v);

export function createDb(databaseUrl: string, poolMax = 10): Db {
  return knex({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 15_000,
  });
}

/**
 * Migrations are TypeScript files under migrations/ (loaded as such under tsx and jest); the
 * built CLI (`npm run build`) loads their JavaScript compiled into dist/migrations/. The name a
 * migration is recorded under has no extension, so both run the same list.
 */
export const MIGRATIONS_DIR = RUNNING_BUILT ? path.join(PROJECT_ROOT, 'dist', 'migrations') : path.join(PROJECT_ROOT, 'migrations');
const MIGRATION_EXT = RUNNING_BUILT ? 'js' : 'ts';

class TsMigrationSource implements Knex.MigrationSource<string> {
  /** `only`: the names (no extension) this source lists, e.g. a backup's migration level. */
  constructor(private readonly only?: ReadonlySet<string>) {}
  async getMigrations() {
    return fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((f) => /^\d{14}_[a-z0-9-]+\.(ts|js)$/.test(f) && f.endsWith(`.${MIGRATION_EXT}`))
      .filter((f) => !this.only || this.only.has(this.getMigrationName(f)))
      .sort();
  }
  getMigrationName(m: string) {
    // keep knex_migrations rows independent of the extension
    return m.replace(/\.(ts|js)$/, '');
  }
  async getMigration(m: string): Promise<Knex.Migration> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path.join(MIGRATIONS_DIR, m));
  }
}

/**
 * Applies the pending migrations. `only`: just these (by name), in their usual order — how a
 * restore rebuilds the schema at a backup's migration level before loading its rows.
 */
export async function migrateLatest(db: Db, opts: { only?: readonly string[] } = {}): Promise<string[]> {
  const [, done] = await db.migrate.latest({ migrationSource: new TsMigrationSource(opts.only ? new Set(opts.only) : undefined) });
  return done as string[];
}

/** The names (no extension) of every migration this code knows, in order. */
export async function knownMigrations(): Promise<string[]> {
  const src = new TsMigrationSource();
  return (await src.getMigrations()).map((m) => src.getMigrationName(m));
}

export async function migrationStatus(db: Db) {
  const [completed, pending] = await db.migrate.list({ migrationSource: new TsMigrationSource() });
  return { completed: completed.map((c: { name: string }) => c.name), pending: pending.map(String) };
}

/** True when a pg error is a unique violation (optionally on a named constraint). */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = e as { code?: string; constraint?: string };
  return err?.code === '23505' && (!constraint || err.constraint === constraint);
}

/** Socket errors that mean the database server cannot be reached (or went away mid-query). */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * pg's own client errors when its socket closed or never opened (they carry no SQLSTATE). knex
 * prefixes the failed query to the message, so these are searched, not anchored.
 */
const CONNECTION_MESSAGES =
  /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect/i;

/**
 * True when `e` says the database cannot be reached right now, as opposed to a query that failed
 * on a working database: a refused, reset or timed-out connection, knex's pool giving up waiting
 * for one (`KnexTimeoutError`), PostgreSQL shutting down or starting (57P01 admin shutdown, 57P02
 * crash shutdown, 57P03 cannot connect now) and SQLSTATE class 08 (connection exception). Any
 * other error (a constraint, a syntax error, a serialization failure) is not one.
 */
export function isDatabaseUnavailable(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 3) return false;
  const err = e as { name?: string; code?: unknown; message?: unknown; errors?: unknown };
  if (err.name === 'KnexTimeoutError') return true;
  const code = typeof err.code === 'string' ? err.code : '';
  if (CONNECTION_ERRNOS.has(code)) return true;
  if (/^[0-9A-Z]{5}$/.test(code)) return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
  if (!code && typeof err.message === 'string' && CONNECTION_MESSAGES.test(err.message)) return true;
  // Node's AggregateError (every address of a host refused). A `cause` is not followed: fetch
  // wraps a refused connection to another service (a provider) that way, and that is no database.
  return Array.isArray(err.errors) && err.errors.some((x) => isDatabaseUnavailable(x, depth + 1));
}

/**
 * Runs `fn` once the outermost transaction of `trx` commits (never when it rolls back): work that
 * must only follow committed rows, such as dispatching the outbox rows the transaction wrote. A
 * failure of `fn` is its own to handle; it never reaches the transaction's caller.
 */
export function afterCommit(trx: Trx, fn: () => Promise<unknown> | unknown): void {
  let root = trx as Trx & { parentTransaction?: Trx };
  while (root.parentTransaction) root = root.parentTransaction as Trx & { parentTransaction?: Trx };
  root.executionPromise.then(
    () =>
      Promise.resolve()
        .then(fn)
        .catch(() => {}),
    () => {},
  );
}
