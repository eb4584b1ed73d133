import { api } from '../../api/client';

/*
 * The autopay calls of the customer area (account spec §7, issue 11). The shapes follow the
 * server's contract (issue 11 "Server"); they move to src/shared/api/autopay.ts with the server.
 */

/** GET /api/me/autopay: the saved profile; `doc_number` comes masked. */
export interface AutopayProfile {
  active: boolean;
  numbers: number[];
  brand: string | null;
  last4: string | null;
  holder_name: string | null;
  doc_number: string | null;
}

/** POST /api/me/autopay: only a token of the card ever reaches our server. */
export interface AutopaySave {
  active: boolean;
  numbers: number[];
  holder_name?: string;
  doc_number?: string;
  card_token?: string;
}

export interface AutopayCardSummary {
  has_card: boolean;
  brand: string | null;
  last4: string | null;
}

/** GET /api/autopay/claims: numbers captive of other customers (`taken`) and of this one (`mine`). */
export interface AutopayClaims {
  taken: number[];
  mine: number[];
}

/** GET /api/autopay/card-config: which tokenizer the browser uses. */
export interface CardConfig {
  provider: 'sandbox' | 'mercadopago';
  public_key: string | null;
}

export const autopayApi = {
  profile: (signal?: AbortSignal) => api.get<AutopayProfile>('/api/me/autopay', { signal }),
  save: (body: AutopaySave) => api.post<{ card: AutopayCardSummary }>('/api/me/autopay', body),
  cancel: () => api.post<unknown>('/api/me/autopay/cancel'),
  claims: (signal?: AbortSignal) => api.get<AutopayClaims>('/api/autopay/claims', { signal }),
  cardConfig: (signal?: AbortSignal) => api.get<CardConfig>('/api/autopay/card-config', { signal }),
};
