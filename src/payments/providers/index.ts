import type { Config } from '../../platform/config';
import type { Db } from '../../platform/db';
import { installationOf, type Installation } from '../../platform/installation';
import { createMercadoPagoProvider } from './mercadopago';
import { createSandboxProvider, type SandboxProvider } from './sandbox';
import type { PaymentProvider } from './types';

/** The path of the provider notification route (kept as it is: it is registered at Mercado Pago). */
export const NOTIFICATION_PATH = '/api/webhooks/mercadopago';

/**
 * The one place that chooses the payment provider from the configuration: the web app, the
 * worker and the CLI all call it. A second PIX provider is one more branch here, its own file
 * beside mercadopago.ts, and its value in PAYMENT_PROVIDER (docs/DECISIONS.md).
 */
export function createProvider(
  config: Config,
  deps: { db: Db; installation?: () => Promise<Installation> },
): { provider: PaymentProvider; sandbox: SandboxProvider | null } {
  const installation = deps.installation ?? installationOf(deps.db);
  if (config.payments.provider === 'sandbox') {
    const sandbox = createSandboxProvider({
      db: deps.db,
      pix: config.payments.pix,
      autoApproveSeconds: config.payments.sandboxAutoApproveSeconds,
      installation,
    });
    return { provider: sandbox, sandbox };
  }
  const mp = config.payments.mercadopago;
  const provider = createMercadoPagoProvider({
    apiUrl: mp.apiUrl,
    accessToken: mp.accessToken as string,
    webhookSecret: mp.webhookSecret,
    publicKey: mp.publicKey ?? null,
    notificationUrl: `${config.publicUrl}${NOTIFICATION_PATH}`,
    idempotencyPrefix: async () => (await installation()).id,
  });
  return { provider, sandbox: null };
}
