import { useState } from 'react';
import { Alert, Button, Card, Skeleton, Tag } from 'antd';
import { ReloadOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { errorMessage } from '../../api/client';
import { AUTOPAY_MESSAGES, MAX_CAPTIVE, pad2 } from './autopay';
import { AutopayDialog, brandLabel } from './AutopayDialog';
import { useAutopayProfile } from './useAutopay';
import './autopay.css';

/**
 * The autopay section of /conta (account spec §2 'Compra automática - número cativo'): what is
 * saved (on or off, the captive numbers, the card) and the button that opens the dialog.
 * `onChanged` lets the page refresh what a save or a cancel may change.
 */
export function AutopayCard({ onChanged }: { onChanged?: () => void }) {
  const { profile, error, loading, reload } = useAutopayProfile();
  const [open, setOpen] = useState(false);

  const configured = !!profile && (profile.numbers.length > 0 || profile.has_card);
  return (
    <Card
      className="account-card autopay-card"
      title={
        <span>
          <ThunderboltOutlined aria-hidden /> Compra automática
        </span>
      }
      extra={
        profile && configured ? <Tag color={profile.active ? 'success' : 'default'}>{profile.active ? 'Ativa' : 'Pausada'}</Tag> : null
      }
    >
      {loading && !profile ? (
        <div role="status" aria-label="Carregando compra automática">
          <Skeleton active title={{ width: '50%' }} paragraph={{ rows: 2 }} />
        </div>
      ) : error && !profile ? (
        <Alert
          type="error"
          showIcon
          title={errorMessage(error, AUTOPAY_MESSAGES.loadFailed)}
          action={
            <Button size="small" icon={<ReloadOutlined />} onClick={reload}>
              Tentar de novo
            </Button>
          }
        />
      ) : profile ? (
        <div className="autopay-summary">
          {configured ? (
            <>
              <p className="autopay-summary__label muted">Seus números cativos</p>
              <p className="autopay-summary__numbers" aria-label="Números cativos salvos">
                {profile.numbers.length ? profile.numbers.map(pad2).join(' ') : 'Nenhum número escolhido.'}
              </p>
              <p className="muted">{profile.last4 ? `${brandLabel(profile.brand)} •••• ${profile.last4}` : 'Nenhum cartão salvo.'}</p>
            </>
          ) : (
            <p className="muted">
              Garanta os mesmos números em todo sorteio: escolha até {MAX_CAPTIVE} números cativos e salve um cartão. Quando um novo sorteio
              abrir, eles são comprados automaticamente.
            </p>
          )}
          <Button type="primary" onClick={() => setOpen(true)}>
            {configured ? 'Alterar compra automática' : 'Configurar compra automática'}
          </Button>
        </div>
      ) : null}
      <AutopayDialog
        open={open}
        onClose={() => setOpen(false)}
        onChanged={() => {
          reload();
          onChanged?.();
        }}
      />
    </Card>
  );
}
