/**
 * '/api' (same origin, proxied by Vite in development) unless VITE_API_BASE says otherwise.
 * On its own so that modules needing only the base URL (components/product/format.ts) do not
 * load the HTTP client.
 */
export const API_BASE = (import.meta.env.VITE_API_BASE || '/api').replace(/\/+$/, '');
