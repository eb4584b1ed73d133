/** What we keep of a payment at the provider, whichever provider it is. */
export type ProviderStatus = 'pending' | 'approved' | 'rejected' | 'cancelled' | 'expired' | 'refunded' | 'charged_back';

export interface CreatePixInput {
  paymentId: number;
  amountCents: number;
  description: string;
  expiresAt: Date;
  payer: { email: string; name: string; cpf: string | null };
}

export interface CreatedPix {
  providerPaymentId: string;
  txid: string | null;
  copyPasteCode: string;
  qrCodeBase64: string;
  status: ProviderStatus;
}

export interface ProviderPayment {
  providerPaymentId: string;
  /** Our payment id, as sent in external_reference. */
  externalReference: string | null;
  status: ProviderStatus;
  amountCents: number;
  paidAt: Date | null;
}

export interface PaymentProvider {
  readonly name: 'sandbox' | 'mercadopago';
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
   * ProviderError.
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
    /** A reason callers may show (e.g. 'card_token_invalid'). */
    public readonly code?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
