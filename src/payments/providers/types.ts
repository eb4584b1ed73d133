/**
 * What we keep of a payment at the provider, whichever provider it is. `authorized` (a card
 * authorized, not captured) and `in_mediation` (a dispute holds the money) are states of their own
 * (RULES P9): the provider holds the money, our clock never expires them.
 */
export type ProviderStatus =
  'pending' | 'authorized' | 'approved' | 'in_mediation' | 'rejected' | 'cancelled' | 'expired' | 'refunded' | 'charged_back';

export interface CreatePixInput {
  paymentId: number;
  amountCents: number;
  description: string;
  /**
   * How long the code is payable, counted by the provider from the moment it sends the request
   * (a deadline computed earlier would reach the provider shorter than asked).
   */
  expiresInMinutes: number;
  payer: { email: string; name: string; cpf: string | null };
}

export interface CreatedPix {
  providerPaymentId: string;
  txid: string | null;
  copyPasteCode: string;
  qrCodeBase64: string;
  status: ProviderStatus;
  /** When the provider's code stops being payable: our hold never ends before it. */
  expiresAt: Date;
}

/**
 * A notification call, whatever its format: only a hint of which payments to ask the provider
 * about again (RULES P8). `signed` says whether the call proved it came from the provider.
 */
export interface NotificationHint {
  signed: boolean;
  /** Why a signature did not verify (absent, stale, bad), for the logs. */
  signatureProblem?: string;
  topic: string;
  /** The provider's payment ids to re-fetch (a chargeback's payments, a merchant order's payments). */
  providerPaymentIds: string[];
}

/** What the browser needs to tokenize a card, and where the provider's browser SDK lives (CSP). */
export interface CardTokenizationConfig {
  provider: string;
  public_key: string | null;
}

export interface ProviderPayment {
  providerPaymentId: string;
  /** Our payment id, as sent in external_reference. */
  externalReference: string | null;
  status: ProviderStatus;
  amountCents: number;
  paidAt: Date | null;
  /** What the provider refunded so far (a partial refund leaves the status approved). */
  refundedCents?: number;
  /**
   * The PIX end-to-end id of a paid PIX (the id a bank prints on the payer's receipt), when the
   * provider reports it; stored on approval (RULES P13).
   */
  endToEndId?: string | null;
}

export interface PaymentProvider {
  readonly name: 'sandbox' | 'mercadopago';
  /** The shortest PIX expiry (minutes) the provider accepts, margin included; config refuses less. */
  readonly minPixExpiryMinutes: number;
  /** Origins of the provider's browser SDK, for the Content-Security-Policy. */
  readonly browserOrigins: { script: string[]; connect: string[]; frame: string[] };
  /** What the browser's card form needs (never a secret). */
  cardConfig(): CardTokenizationConfig;
  /**
   * Reads a notification call (any format the provider sends) into the payments to re-fetch; null
   * when this provider receives no notifications. Throws a retryable ProviderError when it had to
   * ask the provider (a chargeback's payments) and could not.
   */
  readNotification?(req: {
    headers: Record<string, string | undefined>;
    query: Record<string, unknown>;
    body: unknown;
  }): Promise<NotificationHint>;
  createPix(input: CreatePixInput): Promise<CreatedPix>;
  /** Fetches the payment's current state from the provider (null when the provider does not know it). */
  fetch(providerPaymentId: string): Promise<ProviderPayment | null>;
  /**
   * Cancels a charge that was not paid, so it can no longer be paid. True when the provider
   * cancelled it; false when it cannot (already paid, already ended, unknown). Throws a
   * retryable ProviderError when the provider could not be reached.
   */
  cancel?(providerPaymentId: string): Promise<boolean>;
  /**
   * Refunds an approved payment in full, once per idempotency key (a repeated key is the same
   * refund), and answers the payment as the provider shows it afterwards. Throws a ProviderError:
   * retryable when the provider could not be reached, code 'refund_refused' when it refused.
   */
  refund?(providerPaymentId: string, o: { idempotencyKey: string }): Promise<ProviderPayment | null>;
  /** Autopay (RULES A5): saves a tokenized card on the provider's customer of this user. */
  saveCard?(input: SaveCardInput): Promise<SavedCard>;
  /**
   * Autopay: charges a saved card once per idempotency key (a repeated key answers the same
   * charge). Declines come back as status 'rejected'; a transient failure throws a retryable
   * ProviderError; a refusal of the request itself (our configuration or our request, never the
   * card) throws a ProviderError with code 'provider_refused' and the provider's HTTP status.
   */
  chargeCard?(input: ChargeCardInput): Promise<CardCharge>;
}

export interface SaveCardInput {
  userId: number;
  email: string;
  name: string;
  /** The card token the browser made (provider SDK or the sandbox tokenizer): single use. */
  token: string;
  holderName: string;
  /** CPF (11) or CNPJ (14) digits. */
  docNumber: string;
  /** A customer already known for this user (kept from an earlier card). */
  customerId?: string | null;
}

export interface SavedCard {
  customerId: string;
  cardId: string;
  brand: string;
  last4: string;
}

export interface ChargeCardInput {
  /** Our autopay run id: the same run never becomes two charges. */
  idempotencyKey: string;
  paymentId: number;
  amountCents: number;
  description: string;
  customerId: string;
  cardId: string;
  brand: string | null;
  payer: { email: string; docNumber: string | null };
}

export interface CardCharge extends ProviderPayment {
  statusDetail: string | null;
  /** The provider's answer, as recorded on the run (no card data in it). */
  answer: Record<string, unknown>;
}

export class ProviderError extends Error {
  constructor(
    message: string,
    public readonly retryable: boolean,
    /** A reason callers may show (e.g. 'card_token_invalid', 'provider_refused'). */
    public readonly code?: string,
    /** The provider's HTTP status, when it answered. */
    public readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
