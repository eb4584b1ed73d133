import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestContext, createUser, type TestContext, serverQuery, serverUrl } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { BACKUP_MAGIC, readBackupHeader } from '../../src/ops/backup';

/**
 * `cotaverde db backup` / `db restore` refusing what they must refuse, in Portuguese, exit 1
 * (usage errors 2), never a stack trace and never touching the target: a corrupt or truncated
 * file, a file that is not a backup, a backup from a newer migration level, a non-empty target
 * without --force, an unreachable or malformed target. --force replaces a non-empty target.
 */
jest.setTimeout(120_000);

let t: TestContext;
let dir: string;
let good: string;
const dbs: string[] = [];

const adminUrl = (db = 'postgres') => serverUrl(db);
const admin = serverQuery;
/** A fresh database name of this run (dropped in afterAll; leftovers are dropped by the next `npm test`). */
function newDb() {
  const name = `cv_t_${process.env.TEST_RUN_ID ?? process.pid}_bk${randomBytes(3).toString('hex')}`;
  dbs.push(name);
  return name;
}
const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const variant = (name: string, bytes: Buffer) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return p;
};
async function tableCount(db: string): Promise<number> {
  const c = new pg.Client({ connectionString: adminUrl(db) });
  await c.connect();
  try {
    return (await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0].n;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-backup-cli-'));
  t = await createTestContext();
  await createUser(t);
  good = path.join(dir, 'good.cvbak');
  const r = await cli(['db', 'backup', '--out', good]);
  expect(r.code).toBe(0);
});
afterAll(async () => {
  await t?.close();
  for (const d of dbs) await admin(`DROP DATABASE IF EXISTS "${d}" WITH (FORCE)`).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

test('backup --json: one document naming the file, its level, rows and checksum', async () => {
  const out = path.join(dir, 'json.cvbak');
  const r = await cli(['db', 'backup', '--out', out, '--json']);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.out);
  expect(doc).toMatchObject({ file: out, bytes: fs.statSync(out).size, booksOk: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(doc.migration).toBe((await t.services.db('knex_migrations').orderBy('id', 'desc').first()).name);
  // The run is recorded for the console's operations view.
  expect(await t.services.db('backup_runs').where({ file: out }).first()).toMatchObject({ ok: true, kind: 'manual', bytes: doc.bytes });
});

describe('db restore refuses', () => {
  const refused = async (argv: string[], message: RegExp) => {
    const r = await cli(argv);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(STACK);
    expect(r.code).toBe(1);
    return r;
  };

  test('a corrupt file (one byte of the data changed): checksum error, the target untouched', async () => {
    const bytes = fs.readFileSync(good);
    const { bodyOffset } = await readBackupHeader(good);
    bytes[bodyOffset + Math.floor((bytes.length - bodyOffset) / 2)] ^= 0xff;
    const target = newDb();
    await refused(
      ['db', 'restore', variant('corrupt.cvbak', bytes), '--into', adminUrl(target)],
      /^erro: O backup .* está corrompido: o checksum \(sha256\) dos dados não confere com o do manifesto\.\n$/,
    );
    // Checked before anything touches the target: it was not even created.
    expect((await admin(`SELECT 1 FROM pg_database WHERE datname = '${target}'`)).rowCount).toBe(0);
  });

  test('a truncated file (cut in the data, or in the manifest)', async () => {
    const bytes = fs.readFileSync(good);
    await refused(
      ['db', 'restore', variant('cut.cvbak', bytes.subarray(0, bytes.length - 100)), '--into', adminUrl(newDb())],
      /O backup .* está truncado: tem \d+ bytes de dados, o manifesto diz \d+\. Use uma cópia completa\./,
    );
    await refused(
      ['db', 'restore', variant('cut-head.cvbak', bytes.subarray(0, BACKUP_MAGIC.length + 40)), '--into', adminUrl(newDb())],
      /está truncado: o manifesto está incompleto/,
    );
  });

  test('a file that is not a backup, and a missing file', async () => {
    await refused(
      ['db', 'restore', variant('other.txt', Buffer.from('olá\nmundo\n')), '--into', adminUrl(newDb())],
      /não é um backup do Cota Verde \(cabeçalho desconhecido\)/,
    );
    await refused(['db', 'restore', path.join(dir, 'nada.cvbak'), '--into', adminUrl(newDb())], /Arquivo de backup não encontrado: /);
    const head = Buffer.from(`${BACKUP_MAGIC}\n{"format":"outra-coisa"}\n`);
    await refused(
      ['db', 'restore', variant('bad-manifest.cvbak', head), '--into', adminUrl(newDb())],
      /está corrompido ou é de um formato desconhecido: o manifesto não confere/,
    );
  });

  test('a backup from a newer migration level than this code knows', async () => {
    const { manifest, bodyOffset } = await readBackupHeader(good);
    const newer = { ...manifest, migrations: [...manifest.migrations, '20991231000000_do-futuro'] };
    const bytes = Buffer.concat([Buffer.from(`${BACKUP_MAGIC}\n${JSON.stringify(newer)}\n`), fs.readFileSync(good).subarray(bodyOffset)]);
    const target = newDb();
    await refused(
      ['db', 'restore', variant('newer.cvbak', bytes), '--into', adminUrl(target)],
      /O backup está num nível de migração mais novo do que este código conhece \(1 migração desconhecida: 20991231000000_do-futuro\)\. Atualize o Cota Verde/,
    );
    expect((await admin(`SELECT 1 FROM pg_database WHERE datname = '${target}'`)).rowCount).toBe(0);
  });

  test('a non-empty target without --force (its tables stay); with --force it is replaced and checked', async () => {
    const before = await t.services.db('users').count({ n: '*' });
    await refused(
      ['db', 'restore', good, '--into', t.services.config.databaseUrl],
      /O banco de destino .* não está vazio \(\d+ tabelas?\)\. Restaure num banco novo, ou use --force/,
    );
    expect(await t.services.db('users').count({ n: '*' })).toEqual(before);

    const target = newDb();
    await admin(`CREATE DATABASE "${target}"`);
    const c = new pg.Client({ connectionString: adminUrl(target) });
    await c.connect();
    await c.query('CREATE TABLE leftover (x int); INSERT INTO leftover VALUES (1)');
    await c.end();
    await refused(['db', 'restore', good, '--into', adminUrl(target)], /não está vazio \(1 tabela\)/);
    const r = await cli(['db', 'restore', good, '--into', adminUrl(target), '--force']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('--force: apagando o conteúdo atual');
    expect(r.out).toContain('os livros conferem');
    const restored = new pg.Client({ connectionString: adminUrl(target) });
    await restored.connect();
    try {
      expect((await restored.query("SELECT to_regclass('public.leftover') AS t")).rows[0].t).toBeNull();
      expect((await restored.query('SELECT count(*)::int AS n FROM users')).rows[0].n).toBe(Number(before[0].n));
    } finally {
      await restored.end();
    }
    expect(await tableCount(target)).toBeGreaterThan(20);
  });

  test('an unreachable or malformed target', async () => {
    await refused(
      ['db', 'restore', good, '--into', 'postgres://postgres:postgres@127.0.0.1:1/cotaverde'],
      /^erro: Não foi possível conectar ao banco de destino 127\.0\.0\.1:1\/cotaverde: conexão recusada/,
    );
    await refused(['db', 'restore', good, '--into', 'não-é-um-endereço'], /Destino inválido: .* não é um endereço de banco PostgreSQL/);
  });

  test('usage errors exit 2', async () => {
    expect((await cli(['db', 'restore'])).code).toBe(2);
    expect((await cli(['db', 'restore', good, '--into'])).code).toBe(2);
    expect((await cli(['db', 'backup', '--desconhecida'])).code).toBe(2);
  });
});
