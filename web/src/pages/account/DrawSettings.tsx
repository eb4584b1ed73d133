import { useEffect, useState } from 'react';
import { Alert, Button, Card, Form, Input, InputNumber, Skeleton } from 'antd';
import { ReloadOutlined, SettingOutlined } from '@ant-design/icons';
import { errorMessage } from '../../api/client';
import { BANNER_MAX, BANNER_RULES, MAX_PER_SELECTION_RULES, SAVED, SAVE_FAILED, useTimedNotice } from '../../components/drawSettingsForm';
import { accountApi } from './accountApi';

export { BANNER_MAX, SAVED, SAVE_FAILED };

interface Values {
  banner_title: string;
  max_numbers_per_selection: number;
}

/** Admin-only draw settings of the customer area (account spec §2, §5): banner title and max numbers per selection. */
export function DrawSettings() {
  const [form] = Form.useForm<Values>();
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  // Account spec §9: the save message clears after 4 s.
  const [notice, show] = useTimedNotice();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const ctrl = new AbortController();
    setLoading(true);
    setLoadError(null);
    accountApi
      .config(ctrl.signal)
      .then((c) => form.setFieldsValue({ banner_title: c.banner_title ?? '', max_numbers_per_selection: c.max_numbers_per_selection }))
      .catch((err) => {
        if (!ctrl.signal.aborted) setLoadError(err);
      })
      .finally(() => {
        if (!ctrl.signal.aborted) setLoading(false);
      });
    return () => ctrl.abort();
  }, [form, attempt]);

  const save = async (v: Values) => {
    setSaving(true);
    try {
      const c = await accountApi.saveConfig({
        banner_title: v.banner_title.trim(),
        max_numbers_per_selection: v.max_numbers_per_selection,
      });
      form.setFieldsValue({
        banner_title: c.banner_title ?? v.banner_title.trim(),
        max_numbers_per_selection: c.max_numbers_per_selection,
      });
      show({ type: 'success', text: SAVED });
    } catch (err) {
      const detail = errorMessage(err, '');
      show({ type: 'error', text: SAVE_FAILED, detail: detail && detail !== SAVE_FAILED ? detail : undefined });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card
      className="account-card"
      title={
        <span>
          <SettingOutlined aria-hidden /> Configurações do sorteio
        </span>
      }
    >
      {loading ? (
        <div role="status" aria-label="Carregando configurações">
          <Skeleton active paragraph={{ rows: 3 }} />
        </div>
      ) : loadError ? (
        <Alert
          type="error"
          showIcon
          title={errorMessage(loadError, 'Não foi possível carregar as configurações.')}
          action={
            <Button size="small" icon={<ReloadOutlined />} onClick={() => setAttempt((a) => a + 1)}>
              Tentar de novo
            </Button>
          }
        />
      ) : (
        <Form form={form} layout="vertical" onFinish={(v) => void save(v)} requiredMark={false} name="draw-settings">
          <Form.Item name="banner_title" label="Frase do banner" rules={BANNER_RULES}>
            <Input.TextArea maxLength={BANNER_MAX} showCount autoSize={{ minRows: 2, maxRows: 4 }} />
          </Form.Item>
          <Form.Item name="max_numbers_per_selection" label="Máximo de números por seleção" rules={MAX_PER_SELECTION_RULES}>
            <InputNumber min={1} max={10} precision={0} inputMode="numeric" style={{ width: 140 }} />
          </Form.Item>
          <div className="settings-actions">
            <Button type="primary" htmlType="submit" loading={saving}>
              Salvar configurações
            </Button>
          </div>
          {notice && (
            <Alert className="settings-notice" type={notice.type} showIcon title={notice.text} description={notice.detail} role="status" />
          )}
        </Form>
      )}
    </Card>
  );
}
