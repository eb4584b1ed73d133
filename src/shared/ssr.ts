/**
 * What the web process hands the server render of a public page (src/ssr, web/src/entry-server.tsx):
 * the public reads the page shows, by name, each the answer the API gives for it (its body, or its
 * 4xx error). The page's data hooks start from them instead of a skeleton, on the server and again
 * in the browser (the render embeds them in the page as JSON), so the hydrated page matches.
 */
export type SsrRead = { data: unknown } | { error: { status: number; error: string; message: string } };

/** The reads of one page, by name: config, draw, board, closed-draws, home-products, catalogue-sections, result. */
export type SsrReads = Partial<Record<SsrReadName, SsrRead>>;

export type SsrReadName = 'config' | 'draw' | 'board' | 'closed-draws' | 'home-products' | 'catalogue-sections' | 'result';

/** Embedded in the page: the reads, and the react-query entries (key, data) built from them. */
export interface SsrSeeds {
  reads: SsrReads;
  queries: Array<{ key: readonly unknown[]; data: unknown }>;
}

/** The id of the `<script type="application/json">` holding the seeds. */
export const SSR_SEEDS_ID = 'cv-ssr-data';

/**
 * JSON safe inside a `<script>` element: `<` (hence `</script>` and `<!--`) and the two line
 * separators JavaScript once refused in strings are written as \u escapes; JSON.parse reads them back.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
