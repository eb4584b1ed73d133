import { useRef } from 'react';
import { Alert, App, Button, Input, Spin } from 'antd';
import { CheckCircleOutlined, CopyOutlined, ReloadOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { copyText } from '../../components/copyText';
import { formatBRL } from '../../components/product/format';
import type { PixPayment } from './purchaseApi';
import { PurchaseModal } from './PurchaseModal';
import { formatCountdown, useTimeLeft } from './countdown';
import type { PixAnswer } from './purchaseMachine';

export interface PixDialogProps {
  open: boolean;
  /** Null while the payment is being created. */
  payment: PixPayment | null;
  /** What is being paid, e.g. "3 e-books · Guia Prático da Lotomania". */
  summary: string;
  /** A 'Já paguei' check is running. */
  checking: boolean;
  /** The automatic status check failed (it keeps trying). */
  pollFailing: boolean;
  /** The payment reached a status that can no longer be paid (expired, cancelled…). */
  deadStatus: string | null;
  /** The answer of the last 'Já paguei', shown inside this dialog. */
  answer: PixAnswer | null;
  onPaid(): void;
  /** 'Gerar novo código' after the code expired. */
  onRenew(): void;
  onCancel(): void;
}

export type { PixAnswer };

/** Step 3 of the purchase (storefront spec §2 dialogs, §4): amount, QR image, copy-and-paste code. */
export function PixDialog({
  open,
  payment,
  summary,
  checking,
  pollFailing,
  deadStatus,
  answer,
  onPaid,
  onRenew,
  onCancel,
}: PixDialogProps) {
  const { message } = App.useApp();
  const areaWrap = useRef<HTMLDivElement>(null);
  const code = payment?.copy_paste_code || payment?.qr_code || '';
  const qr = payment?.qr_code_base64 ? `data:image/png;base64,${payment.qr_code_base64.replace(/^data:image\/\w+;base64,/, '')}` : null;
  const expires = payment?.expires_at && dayjs(payment.expires_at).isValid() ? dayjs(payment.expires_at) : null;
  const left = useTimeLeft(expires ? expires.valueOf() : null, open && !!payment && !deadStatus);
  // The code's own clock ran out, or the server says it expired: a new code is one tap away.
  const expired = (left !== null && left <= 0) || deadStatus === 'expirado' || deadStatus === 'expired';

  const copy = async () => {
    const area = areaWrap.current?.querySelector('textarea') ?? null;
    if (await copyText(code, area)) message.success('Código PIX copiado! Cole no app do seu banco para pagar.');
    else message.error('Não foi possível copiar. Selecione o código e copie manualmente.');
  };

  return (
    <PurchaseModal
      open={open}
      title="Pagamento via PIX"
      onCancel={onCancel}
      maskClosable={false}
      width={440}
      action={
        <Button
          key="paid"
          type="primary"
          icon={<CheckCircleOutlined />}
          onClick={onPaid}
          loading={checking}
          disabled={!payment || !!deadStatus || expired}
        >
          Já paguei
        </Button>
      }
    >
      {!payment ? (
        <div className="pix-loading" role="status" aria-live="polite">
          <Spin size="large" />
          <p>Gerando o seu código PIX…</p>
        </div>
      ) : (
        <div className="pix-body">
          <div className="pix-amount">
            <span className="muted">Valor a pagar</span>
            <strong>{formatBRL(payment.amount_cents ?? Math.round((payment.amount ?? 0) * 100))}</strong>
            <span className="pix-summary">{summary}</span>
          </div>

          {expired ? (
            <div className="pix-expired" role="alert">
              <Alert
                type="warning"
                showIcon
                title="Código expirado"
                description="O prazo deste código PIX acabou. Gere um novo código para pagar."
              />
              <Button block size="large" type="primary" icon={<ReloadOutlined />} onClick={onRenew} className="pix-renew">
                Gerar novo código
              </Button>
            </div>
          ) : deadStatus ? (
            <Alert
              type="warning"
              showIcon
              title={`Este PIX não pode mais ser pago (status: ${deadStatus}).`}
              description="Feche esta janela e compre de novo para gerar um novo código."
            />
          ) : (
            <>
              {qr && <img className="pix-qr" src={qr} width={240} height={240} alt="QR Code do PIX" />}
              <p className="pix-help">
                Abra o app do seu banco, escolha pagar com PIX e {qr ? 'leia o QR Code ou ' : ''}use o código copia e cola:
              </p>
              <div ref={areaWrap}>
                <Input.TextArea
                  value={code}
                  readOnly
                  autoSize={{ minRows: 3, maxRows: 5 }}
                  aria-label="Código PIX copia e cola"
                  className="pix-code"
                  onFocus={(e) => e.currentTarget.select()}
                />
              </div>
              <Button block size="large" icon={<CopyOutlined />} onClick={() => void copy()} className="pix-copy" disabled={!code}>
                Copiar código PIX
              </Button>
              <div className="pix-wait" role="status" aria-live="polite">
                <Spin size="small" />
                <span>Aguardando a confirmação do pagamento…</span>
              </div>
              {expires && left !== null && (
                <p className="pix-expiry">
                  Válido até {expires.format('HH:mm')}
                  {' · '}
                  {/* Not a live region: a reading every second would drown everything else. */}
                  <span className="pix-countdown">
                    expira em{' '}
                    <time dateTime={`PT${Math.ceil(left / 1000)}S`} aria-label={`expira em ${formatCountdown(left)}`}>
                      {formatCountdown(left)}
                    </time>
                  </span>
                </p>
              )}
              {answer && (
                <Alert className="pix-answer" type={answer.tone} showIcon title={answer.title} description={answer.detail} role="status" />
              )}
              {pollFailing && (
                <p className="pix-poll-error" role="alert">
                  Não conseguimos consultar o pagamento agora; seguimos tentando. Se já pagou, aguarde ou toque em “Já paguei”.
                </p>
              )}
            </>
          )}
        </div>
      )}
    </PurchaseModal>
  );
}
