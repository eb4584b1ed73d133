/**
 * Card tokenization in the browser (RULES A5 "Raw card data never reaches us"): the card
 * goes to the provider, our server only ever receives the token it answers.
 *
 * - sandbox: `POST /api/sandbox/card-tokens` (our API's sandbox tokenizer, same shape as Mercado
 *   Pago's card tokens; it checks Luhn, expiry and CVV and never stores the number).
 * - mercadopago: the Mercado Pago JS SDK v2 (https://sdk.mercadopago.com/js/v2), loaded on the
 *   first use with the public key of `GET /api/autopay/card-config`, then `mp.createCardToken()`.
 *   This path talks to Mercado Pago's servers and cannot run offline: no test exercises it; it is
 *   kept to the few documented calls of the SDK's core methods.
 */
import { ApiError, api } from '../../api/client';
import { AUTOPAY_MESSAGES, docKind, type CardData } from './autopay';
import type { AutopayCardConfig as CardConfig } from '../../api/types';

export interface CardToken {
  id: string;
  brand: string | null;
  last4: string | null;
}

/** The card token errors of account spec §8. */
export const TOKEN_MESSAGES = {
  sdkLoadFailed: 'Não foi possível carregar o sistema de pagamento do cartão. Verifique sua conexão e tente novamente.',
  unavailable: 'A validação do cartão está indisponível no momento. Tente novamente mais tarde.',
  failed: AUTOPAY_MESSAGES.tokenFailed,
} as const;

export class CardTokenError extends Error {
  constructor(
    message: string,
    readonly code: 'sdk_load_failed' | 'unavailable' | 'failed',
  ) {
    super(message);
    this.name = 'CardTokenError';
  }
}

export const MERCADOPAGO_SDK_URL = 'https://sdk.mercadopago.com/js/v2';

/* ------------------------------------------------------------------------------------------ */
/* Sandbox                                                                                    */
/* ------------------------------------------------------------------------------------------ */

async function sandboxToken(card: CardData): Promise<CardToken> {
  try {
    const t = await api.post<{ id: string; brand?: string | null; last4?: string | null }>('/api/sandbox/card-tokens', card);
    if (!t?.id) throw new CardTokenError(TOKEN_MESSAGES.failed, 'failed');
    return { id: t.id, brand: t.brand ?? null, last4: t.last4 ?? null };
  } catch (err) {
    if (err instanceof CardTokenError) throw err;
    // 404: the sandbox tokenizer is off (another provider is active).
    if (err instanceof ApiError && err.status === 404) throw new CardTokenError(TOKEN_MESSAGES.unavailable, 'unavailable');
    // The sandbox's own text ('Cartão vencido.', …) says what to fix.
    if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.fromServer) throw new CardTokenError(err.message, 'failed');
    if (err instanceof ApiError && err.status === 0) throw new CardTokenError(err.message, 'failed');
    throw new CardTokenError(TOKEN_MESSAGES.failed, 'failed');
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Mercado Pago (SDK JS v2)                                                                   */
/* ------------------------------------------------------------------------------------------ */

/** The part of the SDK used here (MercadoPago.js v2 core methods). */
interface MercadoPagoInstance {
  createCardToken(data: {
    cardNumber: string;
    cardholderName: string;
    cardExpirationMonth: string;
    cardExpirationYear: string;
    securityCode: string;
    identificationType: string;
    identificationNumber: string;
  }): Promise<{ id: string; last_four_digits?: string; first_six_digits?: string }>;
  getPaymentMethods?(opts: { bin: string }): Promise<{ results?: Array<{ id?: string; name?: string }> }>;
}
type MercadoPagoCtor = new (publicKey: string, opts?: { locale?: string }) => MercadoPagoInstance;

let sdkLoading: Promise<MercadoPagoCtor> | null = null;

/** Adds the SDK's script tag once; a failed load can be tried again. */
function loadMercadoPagoSdk(): Promise<MercadoPagoCtor> {
  const existing = (window as unknown as { MercadoPago?: MercadoPagoCtor }).MercadoPago;
  if (existing) return Promise.resolve(existing);
  sdkLoading ??= new Promise<MercadoPagoCtor>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = MERCADOPAGO_SDK_URL;
    script.async = true;
    script.onload = () => {
      const ctor = (window as unknown as { MercadoPago?: MercadoPagoCtor }).MercadoPago;
      if (ctor) resolve(ctor);
      else reject(new CardTokenError(TOKEN_MESSAGES.sdkLoadFailed, 'sdk_load_failed'));
    };
    script.onerror = () => {
      script.remove();
      reject(new CardTokenError(TOKEN_MESSAGES.sdkLoadFailed, 'sdk_load_failed'));
    };
    document.head.appendChild(script);
  }).catch((err) => {
    sdkLoading = null;
    throw err;
  });
  return sdkLoading;
}

async function mercadoPagoToken(publicKey: string, card: CardData): Promise<CardToken> {
  const MercadoPago = await loadMercadoPagoSdk();
  let mp: MercadoPagoInstance;
  try {
    mp = new MercadoPago(publicKey, { locale: 'pt-BR' });
  } catch {
    throw new CardTokenError(TOKEN_MESSAGES.unavailable, 'unavailable');
  }
  let token: Awaited<ReturnType<MercadoPagoInstance['createCardToken']>>;
  try {
    token = await mp.createCardToken({
      cardNumber: card.card_number,
      cardholderName: card.cardholder_name,
      cardExpirationMonth: String(card.expiration_month).padStart(2, '0'),
      cardExpirationYear: String(card.expiration_year),
      securityCode: card.security_code,
      identificationType: docKind(card.doc_number),
      identificationNumber: card.doc_number,
    });
  } catch {
    throw new CardTokenError(TOKEN_MESSAGES.failed, 'failed');
  }
  if (!token?.id) throw new CardTokenError(TOKEN_MESSAGES.failed, 'failed');
  // The brand comes from the card's BIN; the server learns it again when it saves the card.
  let brand: string | null = null;
  try {
    const methods = await mp.getPaymentMethods?.({ bin: card.card_number.slice(0, 8) });
    brand = methods?.results?.[0]?.id ?? null;
  } catch {
    brand = null;
  }
  return { id: token.id, brand, last4: token.last_four_digits ?? card.card_number.slice(-4) };
}

/* ------------------------------------------------------------------------------------------ */

/** The token of `card` from the active provider; rejects with a CardTokenError (its message is for the person). */
export async function tokenizeCard(config: CardConfig, card: CardData): Promise<CardToken> {
  if (config.provider === 'sandbox') return sandboxToken(card);
  if (config.provider === 'mercadopago') {
    if (!config.public_key) throw new CardTokenError(TOKEN_MESSAGES.unavailable, 'unavailable');
    return mercadoPagoToken(config.public_key, card);
  }
  throw new CardTokenError(TOKEN_MESSAGES.unavailable, 'unavailable');
}
