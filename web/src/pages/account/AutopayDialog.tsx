import { useEffect, useMemo, useState } from 'react';
import { Alert, App, Button, Form, Input, Modal, Skeleton, Switch } from 'antd';
import { CreditCardOutlined, ReloadOutlined } from '@ant-design/icons';
import { ApiError, errorMessage } from '../../api/client';
import {
  AUTOPAY_MESSAGES as MSG,
  EMPTY_CARD,
  MAX_CAPTIVE,
  formatCardNumber,
  formatCvv,
  formatDoc,
  formatExpiry,
  hasChanges,
  pad2,
  togglePick,
  validateForm,
  type CardFields,
  type FieldErrors,
} from './autopay';
import { autopayApi, type AutopayProfile } from './autopayApi';
import { CardTokenError, tokenizeCard } from './cardTokenizer';
import { CaptiveGrid, CaptiveLegend } from './CaptiveGrid';
import { useAutopayData } from './useAutopay';

export const AUTOPAY_TITLE = 'Compra automática - número cativo';

type Notice = { type: 'error' | 'warning'; text: string; detail?: string };

export function brandLabel(brand: string | null | undefined): string {
  if (!brand) return 'Cartão';
  const b = brand.trim();
  return b.length <= 4 ? b.toUpperCase() : b.charAt(0).toUpperCase() + b.slice(1);
}

/** Saved card, toggle or numbers: something the cancel button would clear. */
const hasSomething = (p: AutopayProfile) => p.active || p.numbers.length > 0 || p.has_card;

/**
 * The dialog 'Compra automática - número cativo' (account spec §2, §5, §8):
 * the active toggle, the 00-99 grid of captive numbers (up to 20), the card form, 'Salvar'
 * (enabled only when something changed) and 'Cancelar compra automática'. The card is
 * tokenized in the browser (cardTokenizer.ts); only the token goes to POST /api/me/autopay.
 */
export function AutopayDialog({ open, onClose, onChanged }: { open: boolean; onClose: () => void; onChanged: () => void }) {
  const { message, modal } = App.useApp();
  const { data, error, loading, reload } = useAutopayData(open);
  const [active, setActive] = useState(false);
  const [picks, setPicks] = useState<number[]>([]);
  const [card, setCard] = useState<CardFields>(EMPTY_CARD);
  const [changingCard, setChangingCard] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<Notice | null>(null);
  const [busy, setBusy] = useState<'save' | 'cancel' | null>(null);

  const profile = data?.profile ?? null;
  const hasSavedCard = !!profile?.has_card;
  // Start from what is saved each time the data arrives (dialog opened, or read again after a conflict).
  useEffect(() => {
    if (!profile) return;

    setActive(hasSomething(profile) ? profile.active : false);
    setPicks([...profile.numbers].sort((a, b) => a - b));
    setCard(EMPTY_CARD);
    setChangingCard(false);
    setFieldErrors({});
  }, [profile]);

  useEffect(() => {
    if (open) return;

    setNotice(null);
    setBusy(null);
  }, [open]);

  const taken = useMemo(() => {
    const mine = new Set(profile?.numbers ?? []);
    return new Set((data?.claims.taken ?? []).filter((n) => !mine.has(n)));
  }, [data, profile]);

  const saved = profile ? { active: hasSomething(profile) ? profile.active : false, numbers: profile.numbers } : null;
  const changed = !!saved && hasChanges(saved, { active, numbers: picks, card });
  const showCardForm = !hasSavedCard || changingCard;

  const toggle = (n: number) => {
    const r = togglePick(picks, n, taken);
    setPicks(r.numbers);
    setFieldErrors((f) => ({ ...f, numbers: undefined }));
    if (r.error) setNotice({ type: 'warning', text: r.error });
    else if (notice?.text === MSG.tooMany || notice?.text === MSG.pickOne) setNotice(null);
  };

  const setField = (k: keyof CardFields, v: string) => {
    setCard((c) => ({ ...c, [k]: v }));
    setFieldErrors((f) => ({ ...f, [k]: undefined }));
    // The message was about what is being corrected now: it goes, the field's own help stays until fixed.
    setNotice(null);
  };

  const save = async () => {
    if (!data || busy) return;
    const v = validateForm({ active, numbers: picks, card }, hasSavedCard);
    if (!v.ok) {
      setFieldErrors(v.fields);
      setNotice({ type: 'error', text: v.message });
      return;
    }
    setBusy('save');
    setNotice(null);
    try {
      let cardToken: string | undefined;
      if (v.card) {
        try {
          cardToken = (await tokenizeCard(data.config, v.card)).id;
        } catch (err) {
          setNotice({ type: 'error', text: err instanceof CardTokenError ? err.message : MSG.tokenFailed });
          return;
        }
      }
      try {
        await autopayApi.save({
          active,
          numbers: picks,
          ...(v.card ? { holder_name: v.card.cardholder_name, doc_number: v.card.doc_number, card_token: cardToken } : {}),
        });
      } catch (err) {
        const fallback = v.card ? MSG.saveFailedCard : MSG.saveFailed;
        setNotice({ type: 'error', text: errorMessage(err, fallback) });
        // Another customer got some of these numbers first: show the grid as it is now.
        if (err instanceof ApiError && err.status === 409) reload();
        return;
      }
      message.success(MSG.saved);
      onChanged();
      onClose();
    } finally {
      setBusy(null);
    }
  };

  const cancelAutopay = () => {
    modal.confirm({
      title: 'Cancelar compra automática',
      content: MSG.cancelConfirm,
      okText: 'Sim, cancelar',
      okButtonProps: { danger: true },
      cancelText: 'Voltar',
      centered: true,
      onOk: async () => {
        setBusy('cancel');
        setNotice(null);
        try {
          await autopayApi.cancel();
          message.success(MSG.cancelled);
          onChanged();
          onClose();
        } catch (err) {
          const detail = errorMessage(err, '');
          setNotice({ type: 'error', text: MSG.cancelFailed, detail: detail && detail !== MSG.cancelFailed ? detail : undefined });
        } finally {
          setBusy(null);
        }
      },
    });
  };

  const fieldProps = (k: keyof FieldErrors) => (fieldErrors[k] ? { validateStatus: 'error' as const, help: fieldErrors[k] } : {});

  return (
    <Modal
      open={open}
      title={AUTOPAY_TITLE}
      onCancel={onClose}
      destroyOnHidden
      centered
      width={920}
      className="autopay-modal"
      footer={
        data ? (
          <div className="autopay-footer">
            {profile && hasSomething(profile) && (
              <Button danger onClick={cancelAutopay} loading={busy === 'cancel'} disabled={!!busy}>
                Cancelar compra automática
              </Button>
            )}
            <span className="autopay-footer__spacer" />
            <Button onClick={onClose}>Fechar</Button>
            <Button type="primary" onClick={() => void save()} loading={busy === 'save'} disabled={!changed || !!busy}>
              Salvar
            </Button>
          </div>
        ) : (
          <Button onClick={onClose}>Fechar</Button>
        )
      }
    >
      {loading && !data ? (
        <div role="status" aria-label="Carregando compra automática">
          <Skeleton active title={false} paragraph={{ rows: 2 }} />
          <div className="captive-grid captive-grid--skeleton" aria-hidden="true">
            {Array.from({ length: 100 }, (_, i) => (
              <span key={i} className="captive-cell captive-cell--skeleton" />
            ))}
          </div>
        </div>
      ) : error && !data ? (
        <Alert
          type="error"
          showIcon
          title={errorMessage(error, MSG.loadFailed)}
          action={
            <Button size="small" icon={<ReloadOutlined />} onClick={reload}>
              Tentar de novo
            </Button>
          }
        />
      ) : data ? (
        <div className="autopay-body">
          <p className="muted autopay-intro">
            Escolha até {MAX_CAPTIVE} números cativos. Sempre que um novo sorteio abrir, eles são reservados para você e comprados
            automaticamente com o cartão salvo.
          </p>
          <label className="autopay-toggle">
            <Switch checked={active} onChange={setActive} disabled={!!busy} aria-label="Compra automática ativa" />
            <span>{active ? 'Compra automática ativa' : 'Compra automática pausada'}</span>
          </label>

          <div className="autopay-columns">
            <section className="autopay-section" aria-labelledby="autopay-numbers-title">
              <div className="autopay-section__head">
                <h3 id="autopay-numbers-title">Números cativos</h3>
                <span className={`autopay-count${picks.length >= MAX_CAPTIVE ? ' autopay-count--full' : ''}`} aria-live="polite">
                  {picks.length} de {MAX_CAPTIVE}
                </span>
              </div>
              <CaptiveLegend />
              <CaptiveGrid picks={picks} taken={taken} onToggle={toggle} disabled={!!busy} />
              <p className="autopay-picked" aria-label="Seus números cativos">
                {picks.length ? picks.map(pad2).join(' ') : 'Nenhum número escolhido.'}
              </p>
              {fieldErrors.numbers && <p className="autopay-field-error">{fieldErrors.numbers}</p>}
            </section>

            <section className="autopay-section" aria-labelledby="autopay-card-title">
              <div className="autopay-section__head">
                <h3 id="autopay-card-title">
                  <CreditCardOutlined aria-hidden /> Cartão
                </h3>
              </div>
              {hasSavedCard && (
                <div className="autopay-saved-card">
                  <span>
                    Cartão salvo:{' '}
                    <strong>
                      {brandLabel(profile?.brand)} •••• {profile?.last4}
                    </strong>
                    {profile?.holder_name ? <span className="muted"> · {profile.holder_name}</span> : null}
                  </span>
                  <Button
                    size="small"
                    onClick={() => {
                      if (changingCard) setCard(EMPTY_CARD);
                      setFieldErrors({});
                      setChangingCard(!changingCard);
                    }}
                    disabled={!!busy}
                  >
                    {changingCard ? 'Manter cartão salvo' : 'Trocar cartão'}
                  </Button>
                </div>
              )}
              {showCardForm && (
                <Form layout="vertical" requiredMark={false} component="div" className="autopay-card-form">
                  <p className="muted autopay-card-note">
                    Os dados do cartão vão direto para o processador de pagamentos; guardamos apenas a bandeira e os 4 últimos dígitos.
                  </p>
                  <Form.Item label="Número do cartão" htmlFor="autopay-card-number" {...fieldProps('number')}>
                    <Input
                      id="autopay-card-number"
                      inputMode="numeric"
                      autoComplete="cc-number"
                      placeholder="0000 0000 0000 0000"
                      value={card.number}
                      onChange={(e) => setField('number', formatCardNumber(e.target.value))}
                    />
                  </Form.Item>
                  <div className="autopay-card-row">
                    <Form.Item label="Validade" htmlFor="autopay-card-expiry" {...fieldProps('expiry')}>
                      <Input
                        id="autopay-card-expiry"
                        inputMode="numeric"
                        autoComplete="cc-exp"
                        placeholder="MM/AA"
                        maxLength={7}
                        value={card.expiry}
                        onChange={(e) => setField('expiry', formatExpiry(e.target.value))}
                      />
                    </Form.Item>
                    <Form.Item label="CVV" htmlFor="autopay-card-cvv" {...fieldProps('cvv')}>
                      <Input
                        id="autopay-card-cvv"
                        inputMode="numeric"
                        autoComplete="cc-csc"
                        placeholder="000"
                        maxLength={4}
                        value={card.cvv}
                        onChange={(e) => setField('cvv', formatCvv(e.target.value))}
                      />
                    </Form.Item>
                  </div>
                  <Form.Item label="Nome do titular (como no cartão)" htmlFor="autopay-card-holder" {...fieldProps('holder')}>
                    <Input
                      id="autopay-card-holder"
                      autoComplete="cc-name"
                      maxLength={80}
                      value={card.holder}
                      onChange={(e) => setField('holder', e.target.value)}
                    />
                  </Form.Item>
                  <Form.Item label="CPF/CNPJ do titular" htmlFor="autopay-card-doc" {...fieldProps('doc')}>
                    <Input
                      id="autopay-card-doc"
                      inputMode="numeric"
                      placeholder="000.000.000-00"
                      value={card.doc}
                      onChange={(e) => setField('doc', formatDoc(e.target.value))}
                    />
                  </Form.Item>
                </Form>
              )}
            </section>
          </div>

          {notice && (
            <Alert className="autopay-notice" type={notice.type} showIcon title={notice.text} description={notice.detail} role="alert" />
          )}
        </div>
      ) : null}
    </Modal>
  );
}
