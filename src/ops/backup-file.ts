import { createHash } from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { z } from 'zod';

/**
 * The backup file's format, read and checked (src/ops/backup.ts writes it, src/ops/restore.ts
 * loads it; docs/DECISIONS.md, "Backups: COPY in one snapshot"):
 *   line 1  `COTAVERDE-BACKUP 1`
 *   line 2  the manifest (JSON, one line): product version, migration level, tables with their
 *           columns, row counts and row digests, sequences, the books check and the balances at
 *           that instant, and the checksum (sha256 and size) of what follows
 *   then    the body, gzip'd: per table, a line `-- <table>`, its rows as PostgreSQL's COPY text
 *           format (one line per row), and a line `\.`
 */
export const BACKUP_MAGIC = 'COTAVERDE-BACKUP 1';
export const BACKUP_FORMAT_VERSION = 1;

const TableSchema = z.object({
  name: z.string().regex(/^[a-z_][a-z0-9_]*$/),
  columns: z.array(z.string().regex(/^[a-z_][a-z0-9_]*$/)).min(1),
  rows: z.number().int().min(0),
  /** Order-free digest of the rows' COPY text lines (see RowsDigest). */
  digest: z.string().regex(/^[0-9a-f]{16}$/),
});

export const ManifestSchema = z.object({
  format: z.literal('cotaverde-backup'),
  formatVersion: z.literal(BACKUP_FORMAT_VERSION),
  product: z.object({ name: z.string(), version: z.string() }),
  createdAt: z.string(),
  server: z.object({ version: z.string(), database: z.string() }),
  /** The migration level: the rows of knex_migrations, in the order they ran. */
  migrations: z.array(z.string()).min(1),
  tables: z.array(TableSchema),
  sequences: z.array(z.object({ name: z.string(), table: z.string(), column: z.string(), lastValue: z.number(), isCalled: z.boolean() })),
  /** The books check (RULES B1) in the same snapshot. */
  books: z.object({ ok: z.boolean(), checks: z.array(z.object({ name: z.string(), ok: z.boolean(), count: z.number() })) }),
  /** Money and number totals in the same snapshot (balancesOf). */
  balances: z.record(z.string(), z.number()),
  checksum: z.object({ algorithm: z.literal('sha256'), value: z.string().regex(/^[0-9a-f]{64}$/), bodyBytes: z.number().int().min(0) }),
});
export type BackupManifest = z.infer<typeof ManifestSchema>;

/** A backup that cannot be used (missing, not ours, corrupt, truncated, too new): its message is for the operator. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/**
 * The digest of a table's rows, whatever their order: the sum (mod 2^64) of the first 8 bytes of
 * each row line's sha256. The same rows give the same digest on any server, in any physical order.
 */
export class RowsDigest {
  private sum = 0n;
  rows = 0;
  addLine(line: Buffer) {
    this.sum = (this.sum + createHash('sha256').update(line).digest().readBigUInt64BE(0)) & 0xffff_ffff_ffff_ffffn;
    this.rows += 1;
  }
  hex() {
    return this.sum.toString(16).padStart(16, '0');
  }
}

const HEADER_MAX = 64 * 1024 * 1024;

/** Reads and validates the magic line and the manifest; returns them with where the body starts. */
export async function readBackupHeader(file: string): Promise<{ manifest: BackupManifest; bodyOffset: number; size: number }> {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new BackupError(`Arquivo de backup não encontrado: ${file}`);
  }
  if (!st.isFile()) throw new BackupError(`${file} não é um arquivo.`);
  const chunks: Buffer[] = [];
  let read = 0;
  let newlines: number[] = [];
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buf = chunk as Buffer;
    for (let i = buf.indexOf(10); i !== -1 && newlines.length < 2; i = buf.indexOf(10, i + 1)) newlines.push(read + i);
    chunks.push(buf);
    read += buf.length;
    if (newlines.length >= 2 || read > HEADER_MAX) break;
  }
  const head = Buffer.concat(chunks);
  const magicEnd = newlines[0] ?? head.length;
  if (head.subarray(0, magicEnd).toString('latin1') !== BACKUP_MAGIC) {
    throw new BackupError(`${file} não é um backup do Cota Verde (cabeçalho desconhecido).`);
  }
  if (newlines.length < 2) throw new BackupError(`O backup ${file} está truncado: o manifesto está incompleto.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(head.subarray(newlines[0] + 1, newlines[1]).toString('utf8'));
  } catch {
    throw new BackupError(`O backup ${file} está corrompido: o manifesto não é um JSON válido.`);
  }
  const m = ManifestSchema.safeParse(parsed);
  if (!m.success) {
    const what = m.error.issues
      .slice(0, 3)
      .map((i) => i.path.join('.') || 'manifesto')
      .join(', ');
    throw new BackupError(`O backup ${file} está corrompido ou é de um formato desconhecido: o manifesto não confere (${what}).`);
  }
  newlines = newlines.slice(0, 2);
  return { manifest: m.data, bodyOffset: newlines[1] + 1, size: st.size };
}

/**
 * Checks the whole file before anything is restored: the manifest, the body's size (a shorter
 * body is a truncated file) and its sha256 (anything else is a corrupt one).
 */
export async function verifyBackupFile(file: string): Promise<{ manifest: BackupManifest; bodyOffset: number }> {
  const { manifest, bodyOffset, size } = await readBackupHeader(file);
  const bodyBytes = size - bodyOffset;
  const want = manifest.checksum.bodyBytes;
  if (bodyBytes < want) {
    throw new BackupError(
      `O backup ${file} está truncado: tem ${bodyBytes} bytes de dados, o manifesto diz ${want}. Use uma cópia completa.`,
    );
  }
  if (bodyBytes > want)
    throw new BackupError(`O backup ${file} está corrompido: tem ${bodyBytes - want} bytes a mais do que o manifesto diz.`);
  const hash = createHash('sha256');
  if (want > 0) for await (const chunk of fs.createReadStream(file, { start: bodyOffset })) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== manifest.checksum.value) {
    throw new BackupError(`O backup ${file} está corrompido: o checksum (sha256) dos dados não confere com o do manifesto.`);
  }
  return { manifest, bodyOffset };
}

/** The body's lines (without the newline), decompressed. */
export async function* bodyLines(file: string, bodyOffset: number): AsyncGenerator<Buffer> {
  const gunzip = zlib.createGunzip();
  const src = fs.createReadStream(file, { start: bodyOffset });
  src.pipe(gunzip);
  src.on('error', (e) => gunzip.destroy(e));
  let rest: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of gunzip) {
      const buf = rest.length ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
        yield buf.subarray(start, nl);
        start = nl + 1;
      }
      rest = Buffer.from(buf.subarray(start));
    }
  } catch (e) {
    throw new BackupError(`O backup ${file} está corrompido: os dados compactados não puderam ser lidos (${(e as Error).message}).`);
  }
  if (rest.length) throw new BackupError(`O backup ${file} está truncado: a última linha de dados está incompleta.`);
}

/** backup file name for a moment: cotaverde-20261127-033000.cvbak (UTC). */
export function backupFileName(at: Date): string {
  const iso = at.toISOString(); // 2026-11-27T03:30:00.000Z
  return `cotaverde-${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}.cvbak`;
}
export const BACKUP_FILE_RE = /^cotaverde-(\d{8})-(\d{6})\.cvbak$/;
