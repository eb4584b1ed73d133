/**
 * PIX BR Code (EMV® QRCPS merchant-presented mode, as the Central Bank's
 * "Manual de Padrões para Iniciação do Pix" specifies): ID-length-value fields,
 * GUI br.gov.bcb.pix, and a CRC16-CCITT-FALSE over everything up to "6304".
 */

/** CRC16-CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor. */
export function crc16ccitt(input: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(input, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function field(id: string, value: string): string {
  const len = Buffer.byteLength(value, 'utf8');
  if (len > 99) throw new Error(`BR Code field ${id} longer than 99 bytes`);
  return id + String(len).padStart(2, '0') + value;
}

/** Upper-case ASCII without accents, as banks' apps expect in name and city. */
export function pixText(s: string, max: number): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 .-]/g, '')
    .trim()
    .slice(0, max);
}

export interface BrCodeInput {
  key: string;
  merchantName: string;
  merchantCity: string;
  /** Amount in cents; omitted for an open-amount code. */
  amountCents?: number;
  /** Reference label (field 62-05). '***' when none. */
  txid: string;
  description?: string;
  /** Point of initiation 12 = single use (dynamic amount). */
  singleUse?: boolean;
}

/**
 * BACEN's limits the manual sets on the fields we fill: the key (26-01) up to 77 characters, the
 * merchant name (59) up to 25, the city (60) up to 15, the reference label (62-05) up to 25
 * characters of [A-Za-z0-9] ('***' when none).
 */
export const BRCODE_LIMITS = { key: 77, merchantName: 25, merchantCity: 15, txid: 25 } as const;
export const TXID_RE = /^(?:[A-Za-z0-9]{1,25}|\*\*\*)$/;

export function buildBrCode(i: BrCodeInput): string {
  if (!TXID_RE.test(i.txid)) throw new Error('BR Code field 62-05 must be 1 to 25 characters of [A-Za-z0-9] (or ***)');
  if (i.key.length < 1 || i.key.length > BRCODE_LIMITS.key) throw new Error('BR Code PIX key must be 1 to 77 characters');
  if (i.merchantName.length < 1 || i.merchantName.length > BRCODE_LIMITS.merchantName)
    throw new Error('BR Code merchant name must be 1 to 25 characters');
  if (i.merchantCity.length < 1 || i.merchantCity.length > BRCODE_LIMITS.merchantCity)
    throw new Error('BR Code merchant city must be 1 to 15 characters');
  const merchantAccount = field('00', 'br.gov.bcb.pix') + field('01', i.key) + (i.description ? field('02', i.description) : '');
  let payload =
    field('00', '01') +
    (i.singleUse ? field('01', '12') : '') +
    field('26', merchantAccount) +
    field('52', '0000') +
    field('53', '986') +
    (i.amountCents != null ? field('54', (i.amountCents / 100).toFixed(2)) : '') +
    field('58', 'BR') +
    field('59', i.merchantName) +
    field('60', i.merchantCity) +
    field('62', field('05', i.txid));
  payload += '6304';
  return payload + crc16ccitt(payload);
}

/** Parses a BR Code into its top-level fields (for tests and support tooling). */
export function parseBrCode(code: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < code.length) {
    const id = code.slice(i, i + 2);
    const len = Number(code.slice(i + 2, i + 4));
    out[id] = code.slice(i + 4, i + 4 + len);
    i += 4 + len;
  }
  return out;
}

export function hasValidCrc(code: string): boolean {
  return code.length > 8 && crc16ccitt(code.slice(0, -4)) === code.slice(-4);
}
