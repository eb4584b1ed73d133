/**
 * The admin console's e-books (issue 9, `/api/admin/infoproducts`), declared once: the server's
 * serializer (src/catalogue/admin.ts) returns them and the console imports them through
 * web/src/api/types.ts. Types only. Money in cents.
 */

/** One row of the 'Cadastro de Infoprodutos' table (and the answer of every write). */
export interface AdminInfoproduct {
  id: number;
  sku: string | null;
  title: string;
  subtitle: string | null;
  description: string | null;
  /** Public image: an uploaded cover (`/api/covers/…`), a site path or an http(s) URL. */
  cover_url: string | null;
  price_cents: number | null;
  default_prize_cents: number;
  /** Alias of default_prize_cents. */
  prize_cents: number;
  default_total_numbers: number;
  /** Alias of default_total_numbers. */
  total_numbers: number;
  active: boolean;
  category_id: number | null;
  category_slug: string | null;
  category_name: string | null;
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
