/**
 * Where Mercado Pago puts it (looked up for issue 26): its SDKs' payment `TransactionData`
 * (mercadopago/sdk-nodejs src/clients/payment/commonTypes.ts, mercadopago/sdk-go
 * pkg/payment/response.go) lists qr_code, qr_code_base64, transaction_id, bank_transfer_id,
 * financial_institution, bank_info and ticket_url; `transaction_id` is there from the creation on,
 * so it is not the payer's transfer. The end-to-end id is `e2e_id`: the name Mercado Pago gives it
 * in its Orders API (`transactions.payments[].payment_method.e2e_id`, "PIXE00360305…"), read by
 * integrations from a payment's `point_of_interaction.transaction_data.e2e_id`. docs/DECISIONS.md
 * ("Winner and /conta") says more.
 *
 * The PIX end-to-end id (RULES P13): "E" + the payer bank's ISPB (8 digits) + yyyyMMddHHmm (12
 * digits) + 11 letters or digits, 32 characters in all, the id a Brazilian bank prints on a PIX
 * receipt. Mercado Pago writes it with a "PIX" prefix ("PIXE00360305…": the `e2e_id` of its Orders
 * API example); the prefix is dropped so the id reads as on the payer's own bank receipt. Anything
 * else a provider sends is kept only when it is a plain id (letters and digits, at most 64).
 */
const E2E = /^(?:PIX)?(E\d{20}[A-Za-z0-9]{11})$/i;

/** The sandbox's "bank" (ISPB 00000000): an end-to-end id made of the approval time and the charge's own id. */
export function sandboxEndToEndId(approvedAt: Date, chargeId: string): string {
  const t = approvedAt.toISOString().replace(/\D/g, '').slice(0, 12);
  const tail = chargeId
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(-11)
    .padStart(11, '0');
  return `E00000000${t}${tail}`;
}

export function pixEndToEndId(raw: unknown): string | null {
  if (raw == null) return null;
  const s = String(raw).trim();
  const m = E2E.exec(s);
  if (m) return m[1][0].toUpperCase() + m[1].slice(1);
  return /^[A-Za-z0-9]{1,64}$/.test(s) ? s : null;
}
