import { createContext, useContext } from 'react';
import { ApiError } from '../api/client';
import type { SsrRead, SsrReadName, SsrSeeds } from '../../../src/shared/ssr';
import { SSR_SEEDS_ID } from '../../../src/shared/ssr';

/**
 * The public reads a server-rendered page was rendered from (src/shared/ssr.ts). The server render
 * provides them per request; in the browser they come from the JSON the page embeds and serve the
 * first render only (hydration): `dropSeeds` (called on the first navigation) forgets them, so a
 * page opened later loads afresh.
 */
export const SeedContext = createContext<SsrSeeds | null>(null);

/** The seeds embedded in the page by the server render, or null (a client-rendered page). */
export function embeddedSeeds(): SsrSeeds | null {
  const el = typeof document === 'undefined' ? null : document.getElementById(SSR_SEEDS_ID);
  if (!el?.textContent) return null;
  try {
    return JSON.parse(el.textContent) as SsrSeeds;
  } catch {
    return null;
  }
}

/** Forgets the reads (their data is the first screen's, not a later visit's). */
export function dropSeeds(seeds: SsrSeeds) {
  seeds.reads = {};
  seeds.queries = [];
}

/** A read the page was rendered from; read it in a state initializer (first render only). */
export function useSeedRead(name: SsrReadName): SsrRead | undefined {
  return useContext(SeedContext)?.reads[name];
}

/** The data of a seeded read, or undefined. */
export const seedData = <T,>(read: SsrRead | undefined): T | undefined => (read && 'data' in read ? (read.data as T) : undefined);

/** The API error of a seeded read (a 404 page), or null. */
export function seedError(read: SsrRead | undefined): ApiError | null {
  if (!read || !('error' in read)) return null;
  const e = read.error;
  return new ApiError(e.status, e.error, e.message, { fromServer: true, body: e });
}

/** Whether the first render is a hydration of server-rendered HTML (set by main.tsx before it). */
export const hydration = { active: false };
