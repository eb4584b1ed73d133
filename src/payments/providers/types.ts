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
}

export class ProviderError extends Error {
  constructor(
    message: string,
    public readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
