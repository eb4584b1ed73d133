import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { createDb, knownMigrations, migrateLatest } from '../platform/db';
import type { Logger } from '../platform/logger';
import { countOf } from '../shared/plural';
import { createBooksService, type BooksReport } from '../audit/books';
import {
  BackupError,
  RowsDigest,
  balancesOf,
  bodyLines,
  listTables,
  setCopySession,
  verifyBackupFile,
  type BackupManifest,
} from './backup';

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

export interface RestoreResult {
  manifest: BackupManifest;
  /** Migrations applied after the rows were loaded (the code is newer than the backup). */
  migratedAfter: string[];
  /** Tables whose rows were loaded and checked against the manifest. */
  tables: number;
  rows: number;
  /** Balance keys that differ from the manifest's (none on a good restore). */
  balanceMismatches: string[];
  books: BooksReport;
}

/** Where a target URL points, for messages (never the password). */
export function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return '(endereço inválido)';
  }
}

function connectError(e: unknown, target: string): BackupError {
  const err = e as { code?: string; message?: string };
  const why =
    err.code === 'ECONNREFUSED'
      ? 'conexão recusada (o servidor está no ar? a porta está certa?)'
      : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
        ? 'servidor não encontrado'
        : err.code === '28P01' || err.code === '28000'
          ? 'usuário ou senha recusados'
          : err.code === 'ETIMEDOUT'
            ? 'o servidor não respondeu'
            : (err.message ?? String(e));
  return new BackupError(`Não foi possível conectar ao banco de destino ${target}: ${why}.`);
}

/** Connects to the target database, creating it (on the same server) when it does not exist yet. */
async function connectTarget(url: string, say: (m: string) => void): Promise<pg.Client> {
  const target = describeTarget(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
    if (!/^postgres(ql)?:$/.test(parsed.protocol) || parsed.pathname.length < 2) throw new Error('not a database URL');
  } catch {
    throw new BackupError(
      `Destino inválido: "${url.replace(/:[^:@/]*@/, ':***@')}" não é um endereço de banco PostgreSQL (postgres://usuário:senha@servidor:porta/banco).`,
    );
  }
  const open = async (connectionString: string) => {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000, application_name: 'cotaverde-restore' });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  try {
    return await open(url);
  } catch (e) {
    if ((e as { code?: string }).code !== '3D000') throw connectError(e, target);
  }
  // The database does not exist: create it through the server's maintenance database.
  const name = decodeURIComponent(parsed.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  let c: pg.Client;
  try {
    c = await open(admin.toString());
  } catch (e) {
    throw connectError(e, target);
  }
  try {
    await c.query(`CREATE DATABASE ${q(name)}`);
    say(`banco ${name} criado.`);
  } catch (e) {
    throw new BackupError(`O banco de destino ${target} não existe e não foi possível criá-lo: ${(e as Error).message}`);
  } finally {
    await c.end().catch(() => {});
  }
  try {
    return await open(url);
  } catch (e) {
    throw connectError(e, target);
  }
}

/** Digest of a table as it now is in the database (the same COPY text as the backup's). */
async function tableDigest(client: pg.Client, name: string, columns: string[]): Promise<RowsDigest> {
  const digest = new RowsDigest();
  const stream = client.query(copyTo(`COPY ${q(name)} (${columns.map(q).join(', ')}) TO STDOUT`)) as unknown as Readable;
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of stream) {
    const buf = rest.length ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
      digest.addLine(buf.subarray(start, nl));
      start = nl + 1;
    }
    rest = Buffer.from(buf.subarray(start));
  }
  return digest;
}

export interface RestoreOptions {
  file: string;
  targetUrl: string;
  /** Replace a target that already has tables (its schema is dropped first). */
  force?: boolean;
  logger: Logger;
  /** Progress lines for the operator (Portuguese). */
  say?: (message: string) => void;
}

/**
 * Restores a backup (src/ops/backup.ts) into `targetUrl`:
 *  1. checks the whole file (checksum, size) and that this code knows every migration of the
 *     backup's level, before touching the target;
 *  2. refuses a target with tables unless `force` (then drops its schema);
 *  3. creates the schema by running the migrations up to the backup's level;
 *  4. in one transaction: empties the tables, loads each one's rows (COPY FROM, in foreign-key
 *     order), checks every table's row count and digest against the manifest, resets the
 *     sequences;
 *  5. migrates up to this code's level, compares the balances and runs the books check.
 */
export async function restoreBackup(o: RestoreOptions): Promise<RestoreResult> {
  const say = o.say ?? (() => {});
  const { manifest, bodyOffset } = await verifyBackupFile(o.file);
  say(`backup de ${manifest.createdAt} (Cota Verde ${manifest.product.version}): checksum confere, ${manifest.tables.length} tabelas.`);

  const known = await knownMigrations();
  const unknown = manifest.migrations.filter((m) => !known.includes(m));
  if (unknown.length) {
    throw new BackupError(
      `O backup está num nível de migração mais novo do que este código conhece (${countOf(unknown.length, 'migração desconhecida', 'migrações desconhecidas')}: ${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', …' : ''}). Atualize o Cota Verde para a versão ${manifest.product.version} ou mais nova e restaure com ela.`,
    );
  }

  const target = describeTarget(o.targetUrl);
  const client = await connectTarget(o.targetUrl, say);
  try {
    const existing = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm')`,
    );
    if (existing.rows[0].n > 0) {
      if (!o.force) {
        throw new BackupError(
          `O banco de destino ${target} não está vazio (${countOf(existing.rows[0].n, 'tabela', 'tabelas')}). Restaure num banco novo, ou use --force para apagar tudo o que há nele e substituir pelo backup.`,
        );
      }
      say(`--force: apagando o conteúdo atual de ${target}…`);
      const schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s;
      await client.query(`DROP SCHEMA ${q(schema)} CASCADE; CREATE SCHEMA ${q(schema)}`);
    }
  } catch (e) {
    await client.end().catch(() => {});
    throw e;
  }

  const db = createDb(o.targetUrl, 2);
  try {
    // 3. The schema at the backup's level.
    await migrateLatest(db, { only: manifest.migrations });
    say(`esquema criado no nível do backup (${manifest.migrations.length} migrações).`);

    // 4. The rows, in one transaction.
    await setCopySession(client);
    const tables = await listTables(client);
    const have = new Map(tables.map((t) => [t.name, t.columns]));
    for (const t of manifest.tables) {
      const cols = have.get(t.name);
      if (!cols)
        throw new BackupError(
          `A tabela ${t.name} do backup não existe no esquema do nível ${manifest.migrations.at(-1)}: o backup não foi feito por este projeto ou está corrompido.`,
        );
      const missing = t.columns.filter((c) => !cols.includes(c));
      if (missing.length) throw new BackupError(`A tabela ${t.name} do backup tem colunas que o esquema não tem (${missing.join(', ')}).`);
    }
    const byName = new Map(manifest.tables.map((t) => [t.name, t]));
    let rows = 0;
    await client.query('BEGIN');
    try {
      // Migrations may have written rows of their own (defaults): the backup's rows replace them.
      if (tables.length) await client.query(`TRUNCATE ${tables.map((t) => q(t.name)).join(', ')} RESTART IDENTITY`);
      // The file lists the tables parents first (foreign keys), so they load in its order.
      const lines = bodyLines(o.file, bodyOffset)[Symbol.asyncIterator]();
      const next = async () => {
        const r = await lines.next();
        if (r.done) throw new BackupError(`O backup ${o.file} está truncado: os dados terminam antes do fim das tabelas.`);
        return r.value;
      };
      for (const t of manifest.tables) {
        const head = (await next()).toString('utf8');
        if (head !== `-- ${t.name}`)
          throw new BackupError(`O backup ${o.file} está corrompido: esperava a tabela ${t.name}, encontrou "${head.slice(0, 60)}".`);
        const read = new RowsDigest();
        const copy = client.query(
          copyFrom(`COPY ${q(t.name)} (${t.columns.map(q).join(', ')}) FROM STDIN`),
        ) as unknown as NodeJS.WritableStream;
        await pipeline(Readable.from(tableChunks(next, read)), copy).catch((e: Error) => {
          throw e instanceof BackupError ? e : new BackupError(`Falha ao carregar a tabela ${t.name}: ${e.message}`);
        });
        if (read.rows !== t.rows || read.hex() !== t.digest) {
          throw new BackupError(
            `O backup ${o.file} está corrompido: as linhas da tabela ${t.name} não conferem com o manifesto (${read.rows} linhas, o manifesto diz ${t.rows}).`,
          );
        }
        const digest = await tableDigest(client, t.name, t.columns);
        if (digest.rows !== t.rows || digest.hex() !== t.digest) {
          throw new BackupError(
            `A tabela ${t.name} restaurada não confere com o manifesto (${digest.rows} linhas, o manifesto diz ${t.rows}).`,
          );
        }
        rows += t.rows;
      }
      if (!(await lines.next()).done) throw new BackupError(`O backup ${o.file} está corrompido: há dados depois da última tabela.`);
      for (const s of manifest.sequences) {
        if (!byName.has(s.table)) continue;
        const max = await client.query<{ m: string | null }>(`SELECT max(${q(s.column)})::bigint AS m FROM ${q(s.table)}`);
        const used = Math.max(s.isCalled ? s.lastValue : s.lastValue - 1, Number(max.rows[0].m ?? 0));
        if (used >= 1) await client.query('SELECT setval(pg_get_serial_sequence($1, $2), $3, true)', [q(s.table), s.column, used]);
        else await client.query('SELECT setval(pg_get_serial_sequence($1, $2), 1, false)', [q(s.table), s.column]);
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    }
    say(`${manifest.tables.length} tabelas carregadas (${rows} linhas); linhas e sequências conferem com o manifesto.`);

    // Balances at the backup's level, compared with the snapshot's.
    const balances = await balancesOf(db);
    const keys = new Set([...Object.keys(balances), ...Object.keys(manifest.balances)]);
    const balanceMismatches = [...keys].filter((k) => (balances[k] ?? 0) !== (manifest.balances[k] ?? 0)).sort();

    // 5. Up to this code's level, then the books.
    const migratedAfter = await migrateLatest(db);
    if (migratedAfter.length) say(`migrações aplicadas depois da carga: ${migratedAfter.join(', ')}`);
    const books = await createBooksService({ db, logger: o.logger }).check();
    return { manifest, migratedAfter, tables: manifest.tables.length, rows, balanceMismatches, books };
  } finally {
    await db.destroy();
    await client.end().catch(() => {});
  }
}

/** One table's rows from the body's lines, as COPY text chunks, up to its `\.` line. */
async function* tableChunks(next: () => Promise<Buffer>, digest: RowsDigest): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let size = 0;
  for (;;) {
    const line = await next();
    if (line.length === 2 && line[0] === 0x5c && line[1] === 0x2e) break; // "\."
    digest.addLine(line);
    pending.push(Buffer.from(line), NEWLINE);
    size += line.length + 1;
    if (size >= 256 * 1024) {
      yield Buffer.concat(pending);
      pending = [];
      size = 0;
    }
  }
  if (pending.length) yield Buffer.concat(pending);
}
const NEWLINE = Buffer.from('\n');
