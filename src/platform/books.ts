import type { Knex } from 'knex';
import type { Conn } from './db';

/**
 * One check of the books (RULES B1): a rule the live database must satisfy, the ids that break
 * it (at most BOOKS_IDS_SHOWN of them; `count` is the full number) and, when the check could not
 * run in full on this schema, a note saying why.
 */
export interface BooksCheck {
  name: string;
  ok: boolean;
  count: number;
  ids: Array<number | string>;
  note?: string;
}

/** A module's checks: read-only functions run in the one read-only snapshot of the books run. */
export type BooksCheckFn = (conn: Conn) => Promise<BooksCheck | BooksCheck[]>;

export const BOOKS_IDS_SHOWN = 200;

/** Builds a check from the offending ids (empty → ok). */
export function booksCheck(name: string, offending: Array<number | string>, note?: string): BooksCheck {
  const ids = [...new Set(offending)];
  return { name, ok: ids.length === 0, count: ids.length, ids: ids.slice(0, BOOKS_IDS_SHOWN), ...(note ? { note } : {}) };
}

/** A composite id, e.g. draw 12 number 7 → "12:7", user 3 product 4 → "3:4". */
export const pairId = (a: number | string, b: number | string) => `${Number(a)}:${Number(b)}`;

/** Rows of a raw query (pg's `rows`). */
export async function rowsOf<T>(conn: Conn, sql: string, bindings: readonly Knex.RawBinding[] = []): Promise<T[]> {
  const r = await conn.raw(sql, bindings as Knex.RawBinding[]);
  return (r.rows ?? r) as T[];
}
