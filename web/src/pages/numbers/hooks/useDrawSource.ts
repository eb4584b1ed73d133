import { useState } from 'react';
import { drawSourceOf, type DrawSource } from '../board';
import { readPendingSelection, type PendingSelection } from './useSelection';

/**
 * Which draw the page was asked for: the navigation state's draw or product; else the draw of the
 * picks saved before a trip to /login (they come back with their draw) until `ignorePending`
 * (the saved draw no longer exists); else nothing (the config's current draw, see useDrawId).
 */
export function useDrawSource(state: unknown): { source: DrawSource; pending: PendingSelection | null; ignorePending(): void } {
  const [pending] = useState(readPendingSelection);
  const [ignored, setIgnored] = useState(false);
  const fromState = drawSourceOf(state);
  const source = fromState.drawId || fromState.product || !pending || ignored ? fromState : { drawId: pending.drawId, product: null };
  return { source, pending, ignorePending: () => setIgnored(true) };
}
