import { API_BASE } from '../../api/client';

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** Cents → "R$ 1.234,56" (spec §9). */
export const formatCents = (cents: number | null | undefined) => BRL.format((Number(cents) || 0) / 100);

/** Public path of the cover images on the API host (spec §3: bare names live there). */
const COVERS_PATH = '/covers';

/** The API host: '' when the API is same-origin ('/api'), otherwise the origin of VITE_API_BASE. */
function apiHost(): string {
  if (/^https?:\/\//i.test(API_BASE)) {
    try {
      return new URL(API_BASE).origin;
    } catch {
      return '';
    }
  }
  return '';
}

/**
 * A cover reference as the API stores it (spec §3): an absolute URL as is, a path starting with
 * '/' on the API host, a bare file name under the public covers path. Empty → null.
 */
export function coverSrc(ref: string | null | undefined): string | null {
  const v = (ref ?? '').trim();
  if (!v) return null;
  if (/^(https?:)?\/\//i.test(v) || /^data:image\//i.test(v)) return v;
  if (v.startsWith('/')) return `${apiHost()}${v}`;
  return `${apiHost()}${COVERS_PATH}/${v.replace(/^\.?\/*/, '')}`;
}
