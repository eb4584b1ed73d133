import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../platform/config';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import { initBackupMetrics, recordBackup } from '../platform/metrics';
import type { BooksService } from '../audit/books';
import type { BackupRunView, BackupStatus } from '../shared/api/ops';
import { BACKUP_FILE_RE, backupFileName, takeBackup, type BackupManifest } from './backup';

/**
 * Backups as the app runs them: `cotaverde db backup` (manual) and the worker's nightly job
 * (`backup.nightly`), which writes into BACKUP_DIR and keeps BACKUP_KEEP_DAILY daily and
 * BACKUP_KEEP_WEEKLY weekly files. Every run, ok or failed, is a row of backup_runs (this module's
 * table) and a metric; the console's operations view reads `status()`.
 */
export interface BackupRunRow {
  id: number;
  kind: 'nightly' | 'manual';
  started_at: Date;
  finished_at: Date;
  ok: boolean;
  file: string | null;
  bytes: number | null;
  tables: number | null;
  rows: number | null;
  books_ok: boolean | null;
  migration: string | null;
  error: string | null;
}

export interface BackupsService {
  /** Takes a backup into `out` and records the run. Throws (after recording the failure) when it fails. */
  take(o: { out: string; kind: 'nightly' | 'manual' }): Promise<{ file: string; bytes: number; manifest: BackupManifest }>;
  /** The nightly job: a backup into BACKUP_DIR, then the retention; nothing when disabled. */
  runNightly(now?: Date): Promise<{ skipped: true } | { file: string; bytes: number; removed: string[] }>;
  status(): Promise<BackupStatus>;
  /** At worker start: the metrics from the last recorded success. */
  initMetrics(): Promise<void>;
}

const view = (r: BackupRunRow): BackupRunView => ({
  id: Number(r.id),
  kind: r.kind,
  startedAt: new Date(r.started_at).toISOString(),
  finishedAt: new Date(r.finished_at).toISOString(),
  ok: r.ok,
  file: r.file ? path.basename(r.file) : null,
  bytes: r.bytes == null ? null : Number(r.bytes),
  tables: r.tables,
  rows: r.rows == null ? null : Number(r.rows),
  booksOk: r.books_ok,
  migration: r.migration,
  // The server's folders stay on the server: paths in the message are cut to their last part.
  error: r.error ? r.error.replace(/(?:[A-Za-z]:)?(?:[\\/][^\s'"\\/]+)+[\\/]([^\s'"\\/]+)/g, '$1') : null,
});

/**
 * The files to keep among backup file names (cotaverde-YYYYMMDD-HHMMSS.cvbak): the newest of each
 * of the `keepDaily` most recent days, plus the newest of each of the `keepWeekly` most recent ISO
 * weeks. Other names are never touched.
 */
export function backupsToKeep(names: string[], keepDaily: number, keepWeekly: number): Set<string> {
  const ours = names
    .filter((n) => BACKUP_FILE_RE.test(n))
    .sort()
    .reverse(); // newest first
  const keep = new Set<string>();
  const days = new Set<string>();
  const weeks = new Set<string>();
  for (const n of ours) {
    const day = BACKUP_FILE_RE.exec(n)![1];
    if (days.has(day)) continue;
    days.add(day);
    if (days.size <= keepDaily) keep.add(n);
  }
  for (const n of ours) {
    const day = BACKUP_FILE_RE.exec(n)![1];
    const week = isoWeek(day);
    if (weeks.has(week)) continue;
    weeks.add(week);
    if (weeks.size <= keepWeekly) keep.add(n);
  }
  return keep;
}

function isoWeek(yyyymmdd: string): string {
  const d = new Date(Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8))));
  const dayNum = d.getUTCDay() || 7; // Monday 1 … Sunday 7
  d.setUTCDate(d.getUTCDate() + 4 - dayNum); // the week's Thursday decides its year
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

export function createBackupsService(deps: { db: Db; config: Config; logger: Logger; books: BooksService }): BackupsService {
  const { db, config, logger, books } = deps;

  async function record(row: Omit<BackupRunRow, 'id' | 'finished_at'>) {
    try {
      await db('backup_runs').insert(row);
    } catch (e) {
      logger.warn({ err: (e as Error).message }, 'backup: could not record the run');
    }
  }

  const service: BackupsService = {
    async take({ out, kind }) {
      const started = new Date();
      try {
        const manifest = await takeBackup({ db, databaseUrl: config.databaseUrl, books }, out);
        const bytes = fs.statSync(out).size;
        const rows = manifest.tables.reduce((s, t) => s + t.rows, 0);
        await record({
          kind,
          started_at: started,
          ok: true,
          file: path.resolve(out),
          bytes,
          tables: manifest.tables.length,
          rows,
          books_ok: manifest.books.ok,
          migration: manifest.migrations.at(-1) ?? null,
          error: null,
        });
        recordBackup({ ok: true, at: new Date(), bytes });
        logger.info(
          { file: path.basename(out), bytes, tables: manifest.tables.length, rows, booksOk: manifest.books.ok, kind },
          'backup written',
        );
        return { file: path.resolve(out), bytes, manifest };
      } catch (e) {
        const message = (e as Error).message || String(e);
        recordBackup({ ok: false });
        logger.error({ err: message, kind }, 'backup failed');
        await record({
          kind,
          started_at: started,
          ok: false,
          file: null,
          bytes: null,
          tables: null,
          rows: null,
          books_ok: null,
          migration: null,
          error: message.slice(0, 2000),
        });
        throw e;
      }
    },

    async runNightly(now = new Date()) {
      if (config.backup.disabled || !config.backup.dir) {
        logger.info('backup: BACKUP_DISABLED, the platform backs the database up');
        return { skipped: true };
      }
      const dir = config.backup.dir;
      fs.mkdirSync(dir, { recursive: true });
      const { file, bytes } = await service.take({ out: path.join(dir, backupFileName(now)), kind: 'nightly' });
      const keep = backupsToKeep(fs.readdirSync(dir), config.backup.keepDaily, config.backup.keepWeekly);
      const removed: string[] = [];
      for (const n of fs.readdirSync(dir)) {
        if (!BACKUP_FILE_RE.test(n) || keep.has(n)) continue;
        fs.rmSync(path.join(dir, n), { force: true });
        removed.push(n);
      }
      if (removed.length) logger.info({ removed }, 'backup: old files removed (retention)');
      return { file, bytes, removed };
    },

    async status() {
      const recent = (await db('backup_runs').orderBy('finished_at', 'desc').orderBy('id', 'desc').limit(10)) as BackupRunRow[];
      const lastOk = (await db('backup_runs').where({ ok: true }).orderBy('finished_at', 'desc').orderBy('id', 'desc').first()) as
        BackupRunRow | undefined;
      return {
        enabled: !config.backup.disabled && !!config.backup.dir,
        keepDaily: config.backup.keepDaily,
        keepWeekly: config.backup.keepWeekly,
        last: recent[0] ? view(recent[0]) : null,
        lastSuccess: lastOk ? view(lastOk) : null,
        recent: recent.map(view),
      };
    },

    async initMetrics() {
      const lastOk = (await db('backup_runs').where({ ok: true }).orderBy('finished_at', 'desc').first()) as BackupRunRow | undefined;
      initBackupMetrics({
        enabled: !config.backup.disabled && !!config.backup.dir,
        lastSuccess: lastOk ? { at: new Date(lastOk.finished_at), bytes: Number(lastOk.bytes ?? 0) } : null,
      });
    },
  };
  return service;
}
