/**
 * Autopay API shapes (RULES A1-A5), declared once: src/autopay serializes them, the web imports
 * them through web/src/api/types.ts. Types only.
 */

/** GET /api/me/autopay */
export interface AutopayProfile {
  active: boolean;
  /** Captive numbers, ascending (0-99). */
  numbers: number[];
  brand: string | null;
  last4: string | null;
  holder_name: string | null;
  /** Masked: CPF ***.456.789-**, CNPJ **.345.678/0001-**. */
  doc_number: string | null;
  has_card: boolean;
}

/** Card summary of POST /api/me/autopay and POST /api/me/autopay/cancel. */
export interface AutopayCardSummary {
  has_card: boolean;
  brand: string | null;
  last4: string | null;
}

/** POST /api/me/autopay {active, numbers, holder_name, doc_number, card_token?} */
export interface AutopaySaveResult {
  card: AutopayCardSummary;
  active: boolean;
  numbers: number[];
}

/** 409 of POST /api/me/autopay when a number is another person's captive number. */
export interface AutopayConflict {
  error: 'numbers_conflict';
  message: string;
  conflicts: number[];
}

/** GET /api/autopay/claims: numbers captive to other active profiles (taken) and to the caller (mine). */
export interface AutopayClaims {
  taken: number[];
  mine: number[];
}

/** GET /api/autopay/card-config: how the browser tokenizes a card. */
export interface AutopayCardConfig {
  provider: 'sandbox' | 'mercadopago';
  /** Mercado Pago's public key (MERCADOPAGO_PUBLIC_KEY); null with the sandbox. */
  public_key: string | null;
}

/** POST /api/sandbox/card-tokens (Mercado Pago card token shape, reduced). */
export interface SandboxCardTokenRequest {
  card_number: string;
  expiration_month: number | string;
  expiration_year: number | string;
  security_code: string;
  cardholder_name: string;
  doc_number: string;
}
export interface SandboxCardToken {
  id: string;
  brand: string;
  last4: string;
}

export type AutopayRunStatus = 'held' | 'charging' | 'approved' | 'failed' | 'released' | 'skipped' | 'provider_refused';

/** GET /api/admin/autopay/runs?draw_id=&limit=&offset= → {items, hasMore, limit, offset} */
export interface AutopayRunView {
  id: number;
  draw_id: number;
  profile_id: number;
  user_id: number;
  user_name: string;
  user_email: string;
  status: AutopayRunStatus;
  numbers: number[];
  skipped_numbers: number[];
  amount_cents: number | null;
  attempts: number;
  payment_id: number | null;
  provider: string | null;
  provider_payment_id: string | null;
  provider_status: string | null;
  error: string | null;
  hold_until: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  settled_at: string | null;
}

export interface AutopayRunsPage {
  items: AutopayRunView[];
  hasMore: boolean;
  limit: number;
  offset: number;
}
