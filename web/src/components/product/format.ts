import { API_BASE } from '../../api/base';
import type { Draw, Product } from '../../api/types';

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** Cents → "R$ 1.234,56" (storefront spec §9: amounts in cents, pt-BR formatting). */
export function formatBRL(cents: number | null | undefined): string {
  return BRL.format((Number.isFinite(cents) ? (cents as number) : 0) / 100);
}

/**
 * Origin of the API host: '' when the API is on this origin (API_BASE '/api'),
 * 'https://api.example' when VITE_API_BASE is an absolute URL.
 */
function apiOrigin(): string {
  try {
    return /^https?:\/\//i.test(API_BASE) ? new URL(API_BASE).origin : '';
  } catch {
    return '';
  }
}

/**
 * Where a cover image lives (storefront spec §3 Infoproduct.cover_url): an absolute URL as is,
 * a path starting with '/' on the API host, a bare file name under the public /covers path (also on
 * the API host, which serves public/covers; same origin by default).
 */
export function coverSrc(coverUrl: string | null | undefined): string | null {
  const c = (coverUrl ?? '').trim();
  if (!c) return null;
  if (/^(https?:)?\/\//i.test(c) || /^data:image\//i.test(c)) return c;
  if (c.startsWith('/')) return `${apiOrigin()}${c}`;
  return `${apiOrigin()}/covers/${c.replace(/^\.?\/*/, '')}`;
}

/** The price of one number: the draw's effective ticket price, else the product's price. */
export function unitPriceCents(product: Pick<Product, 'price_cents'>, draw?: Pick<Draw, 'ticket_price_cents'> | null): number | null {
  const fromDraw = draw?.ticket_price_cents;
  if (typeof fromDraw === 'number' && fromDraw > 0) return fromDraw;
  const own = product.price_cents;
  return typeof own === 'number' && own > 0 ? own : null;
}

/** Board size and free numbers of a draw (a product without an open draw: its default size, all free). */
export function availability(
  product: Pick<Product, 'default_total_numbers'>,
  draw?: (Pick<Draw, 'total_numbers' | 'counts'> & { available?: number }) | null,
): { total: number; available: number } {
  const total = draw?.total_numbers || product.default_total_numbers || 100;
  if (!draw) return { total, available: total };
  if (typeof draw.available === 'number') return { total, available: Math.max(0, Math.min(total, draw.available)) };
  const c = draw.counts ?? { reserved: 0, sold: 0, taken: 0 };
  return { total, available: Math.max(0, total - (c.reserved ?? 0) - (c.sold ?? 0) - (c.taken ?? 0)) };
}
