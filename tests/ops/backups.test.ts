import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { registerJobHandlers } from '../../jobs/registry';
import { SCHEDULES } from '../../src/platform/queue';
import { registry } from '../../src/platform/metrics';
import { backupsToKeep } from '../../src/ops/backups';
import { readBackupHeader, verifyBackupFile } from '../../src/ops/backup';

/**
 * The worker's nightly backup (job `backup.nightly`, ops/backups.ts): a file in BACKUP_DIR with
 * its run recorded and its metrics set, the retention (BACKUP_KEEP_DAILY / BACKUP_KEEP_WEEKLY),
 * a failure recorded and counted, BACKUP_DISABLED; and GET /api/admin/ops/backups, the console's
 * operations view of the last backup.
 */
let t: TestContext;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-nightly-'));
  t = await createTestContext({ env: { BACKUP_DIR: dir, BACKUP_KEEP_DAILY: '2', BACKUP_KEEP_WEEKLY: '2' } });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const metric = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;

test('the schedule: every night at 04:00 Brasília', () => {
  expect(SCHEDULES).toContainEqual({ id: 'backup-nightly', name: 'backup.nightly', pattern: '0 4 * * *', tz: 'America/Sao_Paulo' });
});

test('the nightly job writes a checked backup into BACKUP_DIR, records the run and sets the metrics', async () => {
  const handlers = registerJobHandlers(t.services);
  const failuresBefore = (await metric('cotaverde_backup_failures_total')) ?? 0;
  const out = (await handlers['backup.nightly']({} as never, {} as never)) as { file: string; bytes: number; removed: string[] };
  expect(path.dirname(out.file)).toBe(dir);
  expect(path.basename(out.file)).toMatch(/^cotaverde-\d{8}-\d{6}\.cvbak$/);
  const { manifest } = await verifyBackupFile(out.file);
  expect(manifest.books.ok).toBe(true);
  const run = await t.services.db('backup_runs').orderBy('id', 'desc').first();
  expect(run).toMatchObject({ kind: 'nightly', ok: true, file: out.file, bytes: out.bytes, books_ok: true, error: null });
  expect(await metric('cotaverde_backup_last_success_timestamp_seconds')).toBeGreaterThanOrEqual(
    Math.floor(new Date(run.finished_at).getTime() / 1000) - 5,
  );
  expect(await metric('cotaverde_backup_last_size_bytes')).toBe(out.bytes);
  expect((await metric('cotaverde_backup_failures_total')) ?? 0).toBe(failuresBefore);
});

test('retention: the newest of each of the last BACKUP_KEEP_DAILY days plus of the last BACKUP_KEEP_WEEKLY ISO weeks; other files untouched', async () => {
  const names = [
    'cotaverde-20261127-070000.cvbak', // Fri, week 48: newest
    'cotaverde-20261127-060000.cvbak', // same day, older
    'cotaverde-20261126-070000.cvbak', // Thu, week 48
    'cotaverde-20261125-070000.cvbak', // Wed, week 48
    'cotaverde-20261122-070000.cvbak', // Sun, week 47
    'cotaverde-20261121-070000.cvbak', // Sat, week 47
    'cotaverde-20261115-070000.cvbak', // Sun, week 46
    'notas.txt',
  ];
  expect([...backupsToKeep(names, 2, 2)].sort()).toEqual([
    'cotaverde-20261122-070000.cvbak',
    'cotaverde-20261126-070000.cvbak',
    'cotaverde-20261127-070000.cvbak',
  ]);
  expect([...backupsToKeep(names, 7, 0)].sort()).toEqual(
    [
      'cotaverde-20261115-070000.cvbak',
      'cotaverde-20261121-070000.cvbak',
      'cotaverde-20261122-070000.cvbak',
      'cotaverde-20261125-070000.cvbak',
      'cotaverde-20261126-070000.cvbak',
      'cotaverde-20261127-070000.cvbak',
    ].sort(),
  );
  // A year boundary: 2026-12-31 (Thu) and 2027-01-01 (Fri) are the same ISO week (2026-W53).
  expect([...backupsToKeep(['cotaverde-20261231-010000.cvbak', 'cotaverde-20270101-010000.cvbak'], 1, 2)]).toEqual([
    'cotaverde-20270101-010000.cvbak',
  ]);

  // The job applies it to BACKUP_DIR (2 daily, 2 weekly here), leaving files that are not backups.
  for (const n of fs.readdirSync(dir)) fs.rmSync(path.join(dir, n));
  for (const n of names) fs.writeFileSync(path.join(dir, n), 'x');
  const out = (await t.services.backups.runNightly(new Date('2026-11-28T07:00:00Z'))) as { file: string; removed: string[] };
  expect(path.basename(out.file)).toBe('cotaverde-20261128-070000.cvbak');
  const left = fs.readdirSync(dir).sort();
  expect(left).toContain('notas.txt');
  // Days kept: 28, 27 (newest of each); weeks kept: W48 (28), W47 (22).
  expect(left.filter((n) => n.endsWith('.cvbak'))).toEqual([
    'cotaverde-20261122-070000.cvbak',
    'cotaverde-20261127-070000.cvbak',
    'cotaverde-20261128-070000.cvbak',
  ]);
  expect(out.removed).toContain('cotaverde-20261115-070000.cvbak');
});

test('a failed backup is recorded, counted by the metric and rethrown (the job retries)', async () => {
  const before = (await metric('cotaverde_backup_failures_total')) ?? 0;
  const blocked = path.join(dir, 'um-arquivo');
  fs.writeFileSync(blocked, 'x');
  await expect(t.services.backups.take({ out: path.join(blocked, 'dentro.cvbak'), kind: 'nightly' })).rejects.toThrow();
  expect(await metric('cotaverde_backup_failures_total')).toBe(before + 1);
  const run = await t.services.db('backup_runs').orderBy('id', 'desc').first();
  expect(run).toMatchObject({ kind: 'nightly', ok: false, file: null, error: expect.any(String) });
});

test('BACKUP_DISABLED: the job writes nothing', async () => {
  const off = await createTestContext({ env: { BACKUP_DISABLED: 'true', BACKUP_DIR: path.join(dir, 'off') } });
  try {
    expect(await off.services.backups.runNightly()).toEqual({ skipped: true });
    expect(fs.existsSync(path.join(dir, 'off'))).toBe(false);
    expect((await off.services.backups.status()).enabled).toBe(false);
  } finally {
    await off.close();
  }
});

describe('GET /api/admin/ops/backups', () => {
  test('admin: the last run (the failure above), the last success and the recent runs, newest first; file names only', async () => {
    const adm = await createUser(t, { admin: true });
    const r = await t.api('GET', '/api/admin/ops/backups', { token: adm.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ enabled: true, keepDaily: 2, keepWeekly: 2 });
    expect(r.body.last).toMatchObject({ ok: false, kind: 'nightly', file: null, error: expect.any(String) });
    expect(r.body.lastSuccess).toMatchObject({
      ok: true,
      file: 'cotaverde-20261128-070000.cvbak',
      bytes: expect.any(Number),
      booksOk: true,
      tables: expect.any(Number),
    });
    expect(r.body.recent.length).toBe(3);
    expect(r.body.recent[0].id).toBe(r.body.last.id);
    expect(JSON.stringify(r.body)).not.toContain(dir);
    const one = await t.api('GET', '/api/admin/ops/backups?recent=1', { token: adm.token });
    expect(one.status).toBe(200);
    expect(one.body.recent).toHaveLength(1);
  });

  test('validation: a bad ?recent= or an unknown parameter is a 400 with a Portuguese message', async () => {
    const adm = await createUser(t, { admin: true });
    for (const q of ['recent=0', 'recent=11', 'recent=abc', 'recent=1.5', 'outro=1']) {
      const r = await t.api('GET', `/api/admin/ops/backups?${q}`, { token: adm.token });
      expect([q, r.status]).toEqual([q, 400]);
      expect(r.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
  });

  test('anonymous 401, customer 403', async () => {
    expect((await t.api('GET', '/api/admin/ops/backups')).status).toBe(401);
    const customer = await createUser(t);
    const r = await t.api('GET', '/api/admin/ops/backups', { token: customer.token });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });
});

test('the manifest of a nightly file names the product, the level and the books', async () => {
  const file = path.join(dir, 'cotaverde-20261128-070000.cvbak');
  const { manifest } = await readBackupHeader(file);
  // The newest migration the code knows (the template database is migrated to the latest).
  const latest = fs
    .readdirSync(path.join(__dirname, '../../migrations'))
    .filter((f) => /^\d+_.+\.ts$/.test(f))
    .sort()
    .at(-1)!
    .replace(/\.ts$/, '');
  expect(manifest.migrations.at(-1)).toBe(latest);
  expect(manifest.books.ok).toBe(true);
});
