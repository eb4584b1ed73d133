import { useCallback, useMemo } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { qk } from '../../query';
import type { ParticipationItem } from '../../../../src/shared/api/account';
import { accountApi } from './accountApi';
import { buildParticipationRows, type DrawInfo, type ParticipationRow, type ReservationLike } from './participations';

/** At most this many open draws are asked for the vouchers left (one call each). */
const MAX_OPEN_DRAWS = 20;

export interface ParticipationsState {
  rows: ParticipationRow[];
  /** The raw payments list (the pay flow reuses its PIX data). */
  payments: ParticipationItem[];
  loading: boolean;
  /** The payments or reservations could not be loaded. */
  error: unknown;
  /** Vouchers left could not be checked for some open draws (their rows may be missing). */
  vouchersUnknown: boolean;
  reload(): void;
}

interface Loaded {
  payments: ParticipationItem[];
  reservations: ReservationLike[];
  draws: DrawInfo[];
  remaining: Record<number, number>;
  vouchersUnknown: boolean;
}

/** One read of everything the rows are built from (the open draws' vouchers are a help: a failure only flags them). */
async function loadParticipations(signal: AbortSignal): Promise<Loaded> {
  const [payments, reservations] = await Promise.all([accountApi.payments(signal), accountApi.activeReservations(signal)]);
  let draws: DrawInfo[] = [];
  const remaining: Record<number, number> = {};
  let vouchersUnknown = false;
  try {
    const open = (await accountApi.openDraws(signal)).slice(0, MAX_OPEN_DRAWS);
    draws = open.map((d) => ({
      id: d.id,
      infoproductId: d.infoproduct_id,
      title: d.title || d.product_title || '',
      status: d.status,
      result: d.status,
      sku: d.sku,
      winner_number: d.winner_number,
      won: null,
    }));
    const answers = await Promise.allSettled(open.map((d) => accountApi.remaining(d.id, signal)));
    answers.forEach((a, i) => {
      if (a.status === 'fulfilled') remaining[open[i].id] = a.value.remaining;
      else vouchersUnknown = true;
    });
  } catch (err) {
    if (signal.aborted) throw err;
    vouchersUnknown = true;
  }
  return { payments, reservations, draws, remaining, vouchersUnknown };
}

/**
 * The participations of /conta (a react-query query): payments and voucher uses, active holds, the
 * open draws and the vouchers left in each, then the rows (participations.ts). `reload` refreshes
 * quietly (the table stays while the new data loads); an approval elsewhere invalidates it.
 */
export function useParticipations(): ParticipationsState {
  const client = useQueryClient();
  const q = useQuery({ queryKey: qk.participations, queryFn: ({ signal }) => loadParticipations(signal) });
  const reload = useCallback(() => void client.invalidateQueries({ queryKey: qk.participations }), [client]);
  const d = q.data;
  // Rows are rebuilt when the data changes (lapsed holds drop out on the next read), at that moment's time.
  // eslint-disable-next-line react-hooks/purity -- the time is read when the answer arrives, on purpose
  const rows = useMemo(() => (d ? buildParticipationRows({ ...d, now: Date.now() }) : []), [d]);
  return {
    rows,
    payments: d?.payments ?? [],
    loading: q.isPending || (q.isFetching && !d),
    error: d ? (q.isError ? q.error : null) : (q.error ?? null),
    vouchersUnknown: d?.vouchersUnknown ?? false,
    reload,
  };
}
