/**
 * The admin console's e-books (account spec, `/api/admin/infoproducts`), declared once: the server's
 * serializer (src/catalogue/admin.ts) returns them and the console imports them through
 * web/src/api/types.ts. Types only. Money in cents.
 */
import type { InfoproductFields } from './catalogue';

/** One row of the 'Cadastro de Infoprodutos' table (and the answer of every write). */
export interface AdminInfoproduct extends InfoproductFields {
  /** Alias of default_prize_cents. */
  prize_cents: number;
  /** Alias of default_total_numbers. */
  total_numbers: number;
  /** The PDF (a name in the private e-book storage, never a public URL) and its sha256. */
  has_file: boolean;
  file_url: string | null;
  file_sha256: string | null;
  /** The product's open draw, if any. */
  open_draw_id: number | null;
  draws_count: number;
  created_at: string;
  updated_at: string;
}

export interface AdminInfoproductList {
  items: AdminInfoproduct[];
  hasMore: boolean;
  limit: number;
  offset: number;
}

/** A category the form can pick. */
export interface AdminCategory {
  id: number;
  slug: string;
  name: string;
}
