import { forwardRef, useImperativeHandle } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { qk } from '../../query';
import { Alert, App, Button, Card, Skeleton } from 'antd';
import { CopyOutlined, GiftOutlined, ReloadOutlined } from '@ant-design/icons';
import { errorMessage } from '../../api/client';
import { copyText } from '../../components/copyText';
import { formatBRL } from '../../components/product/format';
import type { CouponBalance } from '../../../../src/shared/api/account';
import { accountApi } from './accountApi';
import { formatDate } from './format';

const LOAD_FAILED = 'Não foi possível carregar o seu saldo agora.';

export interface CouponCardHandle {
  /** Asks the server to credit new approved payments, then shows the balance again. */
  sync(): void;
}

/**
 * The coupon balance (account spec §1, §4): value in BRL, the code with a copy button and the
 * date it stays valid until. Syncs with the payments on mount, when the window gets the focus
 * back and after an approval (`sync()` through the ref).
 */
export const CouponCard = forwardRef<CouponCardHandle>(function CouponCard(_props, ref) {
  const { message } = App.useApp();
  const client = useQueryClient();
  // Each read first asks the server to credit new approved payments (a failed sync is only logged:
  // the balance read still shows what the server has). react-query runs one read at a time, and an
  // invalidation while one runs starts it again, so an approval during a focus sync is not lost.
  const q = useQuery({
    queryKey: qk.coupon,
    queryFn: async ({ signal }) => {
      try {
        await accountApi.syncCoupon();
      } catch (err) {
        console.warn('[conta] sincronização do cupom falhou:', err);
      }
      return accountApi.coupon(signal);
    },
    refetchOnWindowFocus: true,
  });
  useImperativeHandle(ref, () => ({ sync: () => void client.invalidateQueries({ queryKey: qk.coupon }) }), [client]);
  const coupon: CouponBalance | null = q.data ?? null;
  const error = q.error;
  const loading = q.isPending;
  const load = () => void q.refetch();

  const onCopy = async () => {
    if (!coupon?.code) return;
    if (await copyText(coupon.code)) message.success('Código do cupom copiado!');
    else message.error('Não foi possível copiar. Selecione o código e copie manualmente.');
  };

  const validUntil = formatDate(coupon?.valid_until);
  return (
    <Card
      className="account-card coupon-card"
      title={
        <span>
          <GiftOutlined aria-hidden /> Saldo do cupom
        </span>
      }
    >
      {loading && !coupon ? (
        <div role="status" aria-label="Carregando saldo">
          <Skeleton active title={{ width: '40%' }} paragraph={{ rows: 2 }} />
        </div>
      ) : error && !coupon ? (
        <Alert
          type="error"
          showIcon
          title={errorMessage(error, LOAD_FAILED)}
          action={
            <Button size="small" icon={<ReloadOutlined />} onClick={load}>
              Tentar de novo
            </Button>
          }
        />
      ) : coupon ? (
        <div className="coupon-body">
          <p className="coupon-value" aria-label="Saldo disponível">
            {formatBRL(coupon.cents)}
          </p>
          <div className="coupon-code-row">
            <span className="muted">Código</span>
            <code className="coupon-code">{coupon.code}</code>
            <Button size="small" icon={<CopyOutlined />} onClick={() => void onCopy()} aria-label="Copiar código do cupom">
              Copiar
            </Button>
          </div>
          {/* What the balance is, where it is spent and until when (RULES C2 cashback, C3 validity). */}
          <dl className="coupon-facts">
            <div>
              <dt>O que é</dt>
              <dd>Crédito (cashback) das suas compras pagas nesta loja.</dd>
            </div>
            <div>
              <dt>Onde usar</dt>
              <dd>Na loja parceira: informe o código acima no pagamento e o saldo é descontado da compra.</dd>
            </div>
            <div>
              <dt>Validade</dt>
              <dd className="coupon-valid">
                {coupon.cents > 0 && validUntil
                  ? `Até ${validUntil} (180 dias após a sua última compra paga).`
                  : coupon.cents > 0
                    ? 'Até 180 dias após a sua última compra paga.'
                    : 'Sem saldo agora: cada compra paga vira saldo aqui, válido por 180 dias.'}
              </dd>
            </div>
          </dl>
          {error != null && <Alert type="warning" showIcon title={errorMessage(error, 'Não foi possível atualizar o saldo agora.')} />}
        </div>
      ) : null}
    </Card>
  );
});
