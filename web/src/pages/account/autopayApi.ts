import { api } from '../../api/client';
import type { AutopayCardConfig, AutopayClaims, AutopayProfile, AutopaySaveResult } from '../../api/types';

export type { AutopayCardConfig, AutopayClaims, AutopayProfile };

/** POST /api/me/autopay: only a token of the card ever reaches our server. */
export interface AutopaySave {
  active: boolean;
  numbers: number[];
  holder_name?: string;
  doc_number?: string;
  card_token?: string;
}

/** The autopay calls of the customer area (account spec §7; autopay and captive numbers, RULES A1–A6). */
export const autopayApi = {
  profile: (signal?: AbortSignal) => api.get<AutopayProfile>('/api/me/autopay', { signal }),
  save: (body: AutopaySave) => api.post<AutopaySaveResult>('/api/me/autopay', body),
  cancel: () => api.post<unknown>('/api/me/autopay/cancel'),
  claims: (signal?: AbortSignal) => api.get<AutopayClaims>('/api/autopay/claims', { signal }),
  cardConfig: (signal?: AbortSignal) => api.get<AutopayCardConfig>('/api/autopay/card-config', { signal }),
};
