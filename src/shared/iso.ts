/**
 * A timestamp as the API sends it: ISO-8601 in UTC, exactly what JSON.stringify writes for a
 * Date, so an answer's bytes are the same whether a serializer converts or not.
 */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null | undefined): string | null;
export function iso(d: Date | string | null | undefined): string | null {
  return d == null ? null : new Date(d).toISOString();
}
