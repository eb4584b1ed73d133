import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Conn, Db } from '../platform/db';
import { PROJECT_ROOT } from '../platform/paths';
import type { BooksReport } from '../audit/books';
import { BACKUP_FORMAT_VERSION, BACKUP_MAGIC, BackupError, RowsDigest, type BackupManifest } from './backup-file';

// The file's format and its readers are backup-file.ts; restore, the CLI and tests import them from here too.
export {
  BACKUP_FILE_RE,
  BACKUP_FORMAT_VERSION,
  BACKUP_MAGIC,
  BackupError,
  ManifestSchema,
  RowsDigest,
  backupFileName,
  bodyLines,
  readBackupHeader,
  verifyBackupFile,
  type BackupManifest,
} from './backup-file';

/**
 * `cotaverde db backup` and the worker's nightly backup: one file holding every table of the
 * database at one instant, plus a manifest (docs/DECISIONS.md, "Backups: COPY in one snapshot").
 *
 * The file's format: src/ops/backup-file.ts.
 *
 * The schema is not in the file: a restore rebuilds it by running this project's own migrations
 * up to the backup's level, then loads the rows (src/ops/restore.ts). Nothing but the `pg` driver
 * is needed (no pg_dump, which the embedded PostgreSQL does not ship).
 */

/** knex's own bookkeeping: rebuilt by the migrations on restore, never copied. */
export const NOT_COPIED = new Set(['knex_migrations', 'knex_migrations_lock']);

/**
 * The same text for the same values on every connection (backup, restore, verification):
 * COPY's text output of timestamps, intervals and floats depends on these settings.
 */
export async function setCopySession(client: pg.Client) {
  await client.query(
    "SET client_encoding = 'UTF8'; SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 3",
  );
}

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

export interface TableInfo {
  name: string;
  columns: string[];
}

/** Every ordinary table of the current schema (but knex's), with its stored columns (no generated ones). */
export async function listTables(client: pg.Client): Promise<TableInfo[]> {
  const r = await client.query<{ table: string; columns: string[] }>(
    `SELECT c.relname AS table, array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
      GROUP BY c.relname
      ORDER BY c.relname`,
  );
  return r.rows.filter((t) => !NOT_COPIED.has(t.table)).map((t) => ({ name: t.table, columns: t.columns }));
}

/** Table names ordered so that every table comes after the ones it references (self references aside). */
export async function foreignKeyOrder(client: pg.Client, names: string[]): Promise<string[]> {
  const r = await client.query<{ child: string; parent: string }>(
    `SELECT DISTINCT c.relname AS child, p.relname AS parent
       FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = current_schema() AND c.oid <> p.oid`,
  );
  const parents = new Map<string, Set<string>>(names.map((n) => [n, new Set()]));
  for (const e of r.rows) if (parents.has(e.child) && parents.has(e.parent)) parents.get(e.child)!.add(e.parent);
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (n: string) => {
    if (state.get(n) === 'done') return;
    if (state.get(n) === 'visiting')
      throw new BackupError(`As chaves estrangeiras formam um ciclo (tabela ${n}); a restauração não sabe em que ordem carregar.`);
    state.set(n, 'visiting');
    for (const p of [...parents.get(n)!].sort()) visit(p);
    state.set(n, 'done');
    order.push(n);
  };
  for (const n of [...names].sort()) visit(n);
  return order;
}

/** The sequences that feed a column (serial / identity), with their current values. */
export async function listSequences(client: pg.Client): Promise<BackupManifest['sequences']> {
  const r = await client.query<{ seq: string; table: string; column: string }>(
    `SELECT pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS seq, c.relname AS table, a.attname AS column
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
        AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL
      ORDER BY 2, 3`,
  );
  const out: BackupManifest['sequences'] = [];
  for (const s of r.rows) {
    if (NOT_COPIED.has(s.table)) continue;
    const v = await client.query<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${s.seq}`);
    out.push({ name: s.seq, table: s.table, column: s.column, lastValue: Number(v.rows[0].last_value), isCalled: v.rows[0].is_called });
  }
  return out;
}

/**
 * Totals of money and numbers (read-only), compared between the snapshot and a restored copy:
 * payments by status (count and cents), coupon and voucher balances and ledgers, numbers by status.
 */
export async function balancesOf(conn: Conn): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const rows = async (sql: string) => ((await conn.raw(sql)) as { rows: Array<Record<string, unknown>> }).rows;
  for (const r of await rows(
    'SELECT status, count(*)::bigint AS n, coalesce(sum(amount_cents), 0)::bigint AS cents FROM payments GROUP BY status',
  )) {
    out[`payments.${r.status}.count`] = Number(r.n);
    out[`payments.${r.status}.cents`] = Number(r.cents);
  }
  const [c] = await rows(
    `SELECT (SELECT coalesce(sum(balance_cents), 0) FROM coupon_accounts)::bigint AS coupon_balances,
            (SELECT coalesce(sum(amount_cents), 0) FROM coupon_ledger)::bigint AS coupon_ledger,
            (SELECT coalesce(sum(balance), 0) FROM voucher_balances)::bigint AS voucher_balances,
            (SELECT coalesce(sum(delta), 0) FROM voucher_ledger)::bigint AS voucher_ledger,
            (SELECT coalesce(sum(prize_cents), 0) FROM draws)::bigint AS draw_prizes`,
  );
  out['coupons.balance_cents'] = Number(c.coupon_balances);
  out['coupons.ledger_cents'] = Number(c.coupon_ledger);
  out['vouchers.balance'] = Number(c.voucher_balances);
  out['vouchers.ledger'] = Number(c.voucher_ledger);
  out['draws.prize_cents'] = Number(c.draw_prizes);
  for (const r of await rows('SELECT status, count(*)::bigint AS n FROM draw_numbers GROUP BY status'))
    out[`numbers.${r.status}`] = Number(r.n);
  for (const r of await rows('SELECT status, count(*)::bigint AS n FROM draws GROUP BY status')) out[`draws.${r.status}`] = Number(r.n);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** A stream's bytes counted and hashed on their way through. */
function hashingCounter() {
  const hash = createHash('sha256');
  let bytes = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  return { stream: t, result: () => ({ sha256: hash.digest('hex'), bytes }) };
}

/** Splits a table's COPY output into lines, feeding the digest; passes the bytes on unchanged. */
function rowCounter(digest: RowsDigest) {
  let rest: Buffer = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
        digest.addLine(buf.subarray(start, nl));
        start = nl + 1;
      }
      rest = Buffer.from(buf.subarray(start));
      cb(null, chunk);
    },
    flush(cb) {
      cb(rest.length ? new Error('COPY output did not end with a newline') : null);
    },
  });
}

export function productVersion(): { name: string; version: string } {
  const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

export interface TakeBackupDeps {
  /** The app's pool: the books check and the balances run on it, in the backup's snapshot. */
  db: Db;
  databaseUrl: string;
  books: { check(conn?: Conn): Promise<BooksReport> };
}

/**
 * Writes a backup of the whole database to `out` (atomically: `out.partial`, then renamed) and
 * returns its manifest. Every table, the sequences, the books check and the balances are read at
 * one instant: one REPEATABLE READ, READ ONLY transaction copies the rows and exports its snapshot,
 * which the books' transaction imports (SET TRANSACTION SNAPSHOT). Sales go on meanwhile: readers
 * never block writers in PostgreSQL.
 */
export async function takeBackup(deps: TakeBackupDeps, out: string): Promise<BackupManifest> {
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const bodyFile = `${out}.body.partial`;
  const partial = `${out}.partial`;
  const client = new pg.Client({ connectionString: deps.databaseUrl, application_name: 'cotaverde-backup' });
  client.on('error', () => {}); // a dropped connection rejects the running query, reported there
  await client.connect();
  try {
    await setCopySession(client);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0].id;
    const migrations = (await client.query<{ name: string }>('SELECT name FROM knex_migrations ORDER BY id')).rows.map((r) => r.name);
    const server = (
      await client.query<{ v: string; db: string }>("SELECT current_setting('server_version') AS v, current_database() AS db")
    ).rows[0];

    // The books and the balances, in the very snapshot the rows are copied from.
    const { books, balances } = await deps.db.transaction(
      async (trx) => {
        await trx.raw(`SET TRANSACTION SNAPSHOT '${snapshot.replace(/'/g, "''")}'`);
        const report = await deps.books.check(trx);
        return {
          books: { ok: report.ok, checks: report.checks.map((c) => ({ name: c.name, ok: c.ok, count: c.count })) },
          balances: await balancesOf(trx),
        };
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );

    const listed = await listTables(client);
    const byName = new Map(listed.map((t) => [t.name, t]));
    // Parents first, so that a restore loads the file in its order under the foreign keys.
    const tables = (
      await foreignKeyOrder(
        client,
        listed.map((t) => t.name),
      )
    ).map((n) => byName.get(n)!);
    const sequences = await listSequences(client);
    const gzip = zlib.createGzip({ level: 6 });
    const counter = hashingCounter();
    const written = pipeline(gzip, counter.stream, fs.createWriteStream(bodyFile));
    written.catch(() => {}); // awaited below; a failure meanwhile must not be unhandled
    const write = (data: string | Buffer) =>
      new Promise<void>((resolve, reject) => {
        if (gzip.write(data)) return resolve();
        gzip.once('drain', resolve);
        gzip.once('error', reject);
      });
    const manifestTables: BackupManifest['tables'] = [];
    for (const t of tables) {
      await write(`-- ${t.name}\n`);
      const digest = new RowsDigest();
      const copy = client.query(copyTo(`COPY ${q(t.name)} (${t.columns.map(q).join(', ')}) TO STDOUT`)) as unknown as Readable;
      const counted = rowCounter(digest);
      copy.on('error', (e) => counted.destroy(e));
      copy.pipe(counted);
      for await (const chunk of counted) await write(chunk as Buffer);
      await write('\\.\n');
      manifestTables.push({ name: t.name, columns: t.columns, rows: digest.rows, digest: digest.hex() });
    }
    gzip.end();
    await written;
    await client.query('COMMIT');
    const body = counter.result();
    const manifest: BackupManifest = {
      format: 'cotaverde-backup',
      formatVersion: BACKUP_FORMAT_VERSION,
      product: productVersion(),
      createdAt: new Date().toISOString(),
      server: { version: server.v, database: server.db },
      migrations,
      tables: manifestTables,
      sequences,
      books,
      balances,
      checksum: { algorithm: 'sha256', value: body.sha256, bodyBytes: body.bytes },
    };
    await pipeline(async function* () {
      yield Buffer.from(`${BACKUP_MAGIC}\n${JSON.stringify(manifest)}\n`);
      yield* fs.createReadStream(bodyFile);
    }, fs.createWriteStream(partial));
    const fd = fs.openSync(partial, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(partial, out);
    return manifest;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    fs.rmSync(partial, { force: true });
    throw e;
  } finally {
    fs.rmSync(bodyFile, { force: true });
    await client.end().catch(() => {});
  }
}
