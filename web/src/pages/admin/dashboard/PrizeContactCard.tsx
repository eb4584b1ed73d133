import { useEffect, useState } from 'react';
import { Alert, Button, Card, Form, Input, Skeleton } from 'antd';
import { TrophyOutlined } from '@ant-design/icons';
import { api, errorMessage } from '../../../api/client';
import type { PrizeContact } from '../../../../../src/shared/prize';
import { formatWhatsapp } from '../../../../../src/shared/prize';
import { useTimedNotice } from '../../../components/drawSettingsForm';

export const PRIZE_CONTACT_SAVED = 'Contato do prêmio salvo.';
export const PRIZE_CONTACT_SAVE_FAILED = 'Não foi possível salvar o contato do prêmio.';
export const PRIZE_CONTACT_LOAD_FAILED = 'Não foi possível carregar o contato do prêmio.';

const PATH = '/api/admin/settings/prize-contact';

interface Values {
  whatsapp: string;
  email: string;
}

/**
 * 'Contato para resgate do prêmio' (issue 26): the WhatsApp number and e-mail the winner is told to
 * contact, on /me/draw, /conta and in the winner's e-mail (GET/PUT /api/admin/settings/prize-contact;
 * the server validates, normalises and audits). Its own card, apart from the price settings.
 */
export function PrizeContactCard() {
  const [form] = Form.useForm<Values>();
  const [loaded, setLoaded] = useState<PrizeContact | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [saving, setSaving] = useState(false);
  const [notice, show] = useTimedNotice();

  useEffect(() => {
    const ctrl = new AbortController();
    setLoadError(null);
    api
      .get<PrizeContact>(PATH, { signal: ctrl.signal })
      .then((c) => {
        setLoaded(c);
        form.setFieldsValue({ whatsapp: c.whatsapp ?? '', email: c.email ?? '' });
      })
      .catch((err) => {
        if (!ctrl.signal.aborted) setLoadError(errorMessage(err, PRIZE_CONTACT_LOAD_FAILED));
      });
    return () => ctrl.abort();
  }, [attempt, form]);

  const save = async (v: Values) => {
    setSaving(true);
    try {
      const saved = await api.put<PrizeContact>(PATH, { whatsapp: v.whatsapp.trim(), email: v.email.trim() });
      setLoaded(saved);
      form.setFieldsValue({ whatsapp: saved.whatsapp ?? '', email: saved.email ?? '' });
      show({ type: 'success', text: PRIZE_CONTACT_SAVED });
    } catch (err) {
      const reason = errorMessage(err, '');
      show({ type: 'error', text: PRIZE_CONTACT_SAVE_FAILED, detail: reason && reason !== PRIZE_CONTACT_SAVE_FAILED ? reason : undefined });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card
      className="admin-card prize-contact-card"
      title={
        <span>
          <TrophyOutlined aria-hidden /> Contato para resgate do prêmio
        </span>
      }
    >
      {loadError ? (
        <div role="alert">
          <p>{loadError}</p>
          <Button onClick={() => setAttempt((a) => a + 1)}>Tentar de novo</Button>
        </div>
      ) : !loaded ? (
        <div role="status" aria-label="Carregando o contato do prêmio">
          <Skeleton active paragraph={{ rows: 2 }} />
        </div>
      ) : (
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          name="prize-contact"
          style={{ maxWidth: 560 }}
          onFinish={(v) => void save(v)}
        >
          <p className="muted">O ganhador vê este contato na área do cliente e no e-mail do prêmio.</p>
          <Form.Item
            name="whatsapp"
            label="WhatsApp (com DDD)"
            extra={loaded.whatsapp ? `Atual: ${formatWhatsapp(loaded.whatsapp)}` : 'Deixe em branco para não mostrar.'}
            rules={[{ pattern: /^[\d\s()+.-]*$/, message: 'Use só números (com DDD), espaços, parênteses ou hífen.' }]}
          >
            <Input inputMode="tel" autoComplete="off" placeholder="(41) 99999-8888" maxLength={25} />
          </Form.Item>
          <Form.Item
            name="email"
            label="E-mail"
            rules={[{ type: 'email', message: 'Informe um e-mail válido.' }]}
            extra="Deixe em branco para não mostrar."
          >
            <Input inputMode="email" autoComplete="off" placeholder="premios@sualoja.com.br" maxLength={254} />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={saving}>
            SALVAR CONTATO
          </Button>
          {notice && (
            <Alert className="settings-notice" type={notice.type} showIcon title={notice.text} description={notice.detail} role="status" />
          )}
        </Form>
      )}
    </Card>
  );
}
