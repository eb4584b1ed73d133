import QRCode from 'qrcode';
import { buildBrCode, crc16ccitt, hasValidCrc, parseBrCode, pixText } from '../../src/payments/brcode';
import { createSandboxProvider, newTxid, qrPngBase64 } from '../../src/payments/providers/sandbox';
import { createTestContext, type TestContext } from '../helpers/context';
import { installationOf } from '../../src/platform/installation';

// pngjs (qrcode's own PNG codec) ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PNG } = require('pngjs') as { PNG: { sync: { read(buf: Buffer): { width: number; height: number; data: Buffer } } } };

/** The Central Bank's published examples (Manual de Padrões para Iniciação do Pix). */
const BCB_STATIC =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
const BCB_DYNAMIC =
  '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4';

/** Parses the nested TLV of a template field (26, 62). */
const sub = (value: string) => parseBrCode(value);

/** Field ids in the order they appear (parseBrCode's object reorders integer-like keys). */
function fieldOrder(code: string): string[] {
  const ids: string[] = [];
  for (let i = 0; i < code.length; i += 4 + Number(code.slice(i + 2, i + 4))) ids.push(code.slice(i, i + 2));
  return ids;
}

/** Reads a QR PNG back into its module matrix by sampling each module's centre. */
function modulesOf(pngBase64: string, size: number, margin = 1): string {
  const png = PNG.sync.read(Buffer.from(pngBase64, 'base64'));
  const scale = png.width / (size + 2 * margin);
  let out = '';
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const x = Math.floor((c + margin + 0.5) * scale);
      const y = Math.floor((r + margin + 0.5) * scale);
      out += png.data[(y * png.width + x) * 4] < 128 ? '1' : '0';
    }
  }
  return out;
}

describe('CRC16-CCITT-FALSE and the BCB examples', () => {
  test('the standard check value of CRC-16/CCITT-FALSE ("123456789" → 29B1)', () => {
    expect(crc16ccitt('123456789')).toBe('29B1');
  });

  test('the static example of the Central Bank has CRC 1D3D, and we compute it', () => {
    expect(crc16ccitt(BCB_STATIC.slice(0, -4))).toBe('1D3D');
    expect(hasValidCrc(BCB_STATIC)).toBe(true);
  });

  test('the dynamic example of the Central Bank has CRC 64E4, and we compute it', () => {
    expect(crc16ccitt(BCB_DYNAMIC.slice(0, -4))).toBe('64E4');
    expect(hasValidCrc(BCB_DYNAMIC)).toBe(true);
  });

  test('buildBrCode reproduces the static example byte for byte', () => {
    const code = buildBrCode({
      key: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      txid: '***',
    });
    expect(code).toBe(BCB_STATIC);
  });

  test('one changed character breaks the CRC', () => {
    expect(hasValidCrc(BCB_STATIC.replace('BRASILIA', 'BRASILIO'))).toBe(false);
    expect(hasValidCrc(BCB_STATIC.slice(0, -1) + 'E')).toBe(false);
  });

  test('parseBrCode reads the top-level and nested fields of the example', () => {
    const f = parseBrCode(BCB_STATIC);
    expect(f).toMatchObject({ '00': '01', '52': '0000', '53': '986', '58': 'BR', '59': 'Fulano de Tal', '60': 'BRASILIA', '63': '1D3D' });
    expect(sub(f['26'])).toEqual({ '00': 'br.gov.bcb.pix', '01': '123e4567-e12b-12d1-a456-426655440000' });
    expect(sub(f['62'])).toEqual({ '05': '***' });
  });

  test('pixText strips accents and symbols and cuts to the field limit', () => {
    expect(pixText('Cota Verde Comércio de E-books & Cia Ltda', 25)).toBe('Cota Verde Comercio de E-');
    expect(pixText('São José dos Pinhais', 15)).toBe('Sao Jose dos Pi');
  });

  test('txids are 25 unambiguous alphanumerics (the 62-05 limit of BACEN) and do not repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newTxid();
      expect(id).toMatch(/^[A-Za-z0-9]{25}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });
});

describe('QR image', () => {
  test.each([
    ['short key', 'pix@cotaverde.com.br', 'COTA VERDE', 'CURITIBA'],
    // An EVP key with the longest name and city: QR version 9, where the image came out 239×239.
    ['EVP key, long name and city', '123e4567-e12b-12d1-a456-426655440000', 'Cota Verde Comércio de E-books Ltda', 'São José dos Pinhais'],
    ['long e-mail key', 'financeiro.pagamentos@cotaverde.com.br', 'Cota Verde Comércio de E-books Ltda', 'CURITIBA'],
  ])('is a 240×240 PNG that encodes the BR Code (%s)', async (_label, key, name, city) => {
    for (const cents of [100, 600, 12_345, 1_999_999]) {
      const code = buildBrCode({
        key,
        merchantName: pixText(name, 25),
        merchantCity: pixText(city, 15),
        amountCents: cents,
        txid: newTxid(),
        singleUse: true,
      });
      const b64 = await qrPngBase64(code);
      expect(b64).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const png = PNG.sync.read(Buffer.from(b64, 'base64'));
      expect([png.width, png.height]).toEqual([240, 240]);
      // The image's modules are exactly the QR symbol of the code.
      const qr = QRCode.create(code, { errorCorrectionLevel: 'M' });
      const expected = Array.from(qr.modules.data as Uint8Array, (v) => (v ? '1' : '0')).join('');
      expect(modulesOf(b64, qr.modules.size)).toEqual(expected);
    }
  });
});

describe('BACEN field rules', () => {
  test('newTxid: 25 characters of [A-Za-z0-9] (62-05), unguessable', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newTxid()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{25}$/);
  });

  test("buildBrCode refuses fields outside the manual's limits; every field of a code has its declared length", () => {
    const ok = { key: 'pix@example.com', merchantName: 'LOJA', merchantCity: 'CURITIBA', amountCents: 100, txid: 'A'.repeat(25) };
    const code = buildBrCode(ok);
    expect(hasValidCrc(code)).toBe(true);
    // ID(2) + length(2) + value, to the end: the declared lengths add up exactly.
    let i = 0;
    while (i < code.length) i += 4 + Number(code.slice(i + 2, i + 4));
    expect(i).toBe(code.length);
    expect(() => buildBrCode({ ...ok, txid: 'A'.repeat(26) })).toThrow(/62-05/);
    expect(() => buildBrCode({ ...ok, txid: 'ABC-123' })).toThrow(/62-05/);
    expect(() => buildBrCode({ ...ok, merchantName: 'N'.repeat(26) })).toThrow(/merchant name/);
    expect(() => buildBrCode({ ...ok, merchantCity: 'C'.repeat(16) })).toThrow(/city/);
    expect(buildBrCode({ ...ok, txid: '***' })).toContain('0503***');
  });
});

describe('sandbox provider', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });
  afterAll(() => t.close());

  test.each([
    { key: 'pix@cotaverde.com.br', merchantName: 'COTA VERDE', merchantCity: 'CURITIBA' },
    {
      key: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Cota Verde Comércio de E-books Ltda',
      merchantCity: 'São José dos Pinhais',
    },
  ])('creates a valid single-use PIX BR Code with amount and txid ($merchantName)', async (pix) => {
    const sandbox = createSandboxProvider({ db: t.services.db, pix, autoApproveSeconds: 0, installation: installationOf(t.services.db) });
    const created = await sandbox.createPix({
      paymentId: 987,
      amountCents: 12_345,
      description: 'x',
      expiresInMinutes: 30,
      payer: { email: 'a@b.c', name: 'A B', cpf: null },
    });
    const code = created.copyPasteCode;
    expect(hasValidCrc(code)).toBe(true);
    const f = parseBrCode(code);
    // Every top-level field, in order, and nothing else.
    expect(fieldOrder(code)).toEqual(['00', '01', '26', '52', '53', '54', '58', '59', '60', '62', '63']);
    expect(f['00']).toBe('01');
    expect(f['01']).toBe('12');
    expect(sub(f['26'])).toEqual({ '00': 'br.gov.bcb.pix', '01': pix.key });
    expect(f['52']).toBe('0000');
    expect(f['53']).toBe('986');
    expect(f['54']).toBe('123.45');
    expect(f['58']).toBe('BR');
    expect(f['59'].length).toBeLessThanOrEqual(25);
    expect(f['59']).toBe(pixText(pix.merchantName, 25));
    expect(f['60'].length).toBeLessThanOrEqual(15);
    expect(f['60']).toBe(pixText(pix.merchantCity, 15));
    expect(f['59'] + f['60']).toMatch(/^[\x20-\x7e]+$/);
    const txid = sub(f['62'])['05'];
    // BACEN: 62-05 at most 25 characters of [A-Za-z0-9] in a static code.
    expect(txid).toMatch(/^[A-Za-z0-9]{25}$/);
    expect(created.txid).toBe(txid);
    expect(created.providerPaymentId).toBe(`sbx_${txid}`);
    const png = PNG.sync.read(Buffer.from(created.qrCodeBase64, 'base64'));
    expect([png.width, png.height]).toEqual([240, 240]);
    // The "bank side" row the sandbox keeps.
    const charge = await t.services.db('sandbox_charges').where({ provider_payment_id: created.providerPaymentId }).first();
    expect(charge).toMatchObject({ external_reference: '987', amount_cents: 12_345, status: 'pending' });
  });

  test("without PIX_KEY the key is this installation's random EVP (a uuid nobody can own), made once per database", async () => {
    expect(t.services.config.payments.pix.key).toBeNull();
    const inst = await t.services.db('installation').first('pix_evp');
    expect(inst.pix_evp).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const sandbox = createSandboxProvider({
      db: t.services.db,
      pix: t.services.config.payments.pix,
      autoApproveSeconds: 0,
      installation: installationOf(t.services.db),
    });
    const created = await sandbox.createPix({
      paymentId: 5,
      amountCents: 100,
      description: 'x',
      expiresInMinutes: 30,
      payer: { email: 'a@b.c', name: 'A B', cpf: null },
    });
    expect(sub(parseBrCode(created.copyPasteCode)['26'])['01']).toBe(inst.pix_evp);
    expect(hasValidCrc(created.copyPasteCode)).toBe(true);
  });

  test('the charge is pending, then approved once, then expired when unpaid past its time', async () => {
    const sandbox = createSandboxProvider({
      db: t.services.db,
      pix: t.services.config.payments.pix,
      autoApproveSeconds: 0,
      installation: installationOf(t.services.db),
    });
    const payer = { email: 'a@b.c', name: 'A B', cpf: null };
    const a = await sandbox.createPix({ paymentId: 1, amountCents: 100, description: 'x', expiresInMinutes: 1, payer });
    expect((await sandbox.fetch(a.providerPaymentId))?.status).toBe('pending');
    expect(await sandbox.approve(a.providerPaymentId)).toBe(true);
    expect(await sandbox.approve(a.providerPaymentId)).toBe(false);
    const approved = await sandbox.fetch(a.providerPaymentId);
    expect(approved).toMatchObject({ status: 'approved', amountCents: 100, externalReference: '1' });
    expect(approved?.paidAt).toBeInstanceOf(Date);

    const b = await sandbox.createPix({ paymentId: 2, amountCents: 100, description: 'x', expiresInMinutes: -1, payer });
    expect((await sandbox.fetch(b.providerPaymentId))?.status).toBe('expired');
    expect(await sandbox.fetch('sbx_UNKNOWN')).toBeNull();
  });
});
