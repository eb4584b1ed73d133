import { useEffect, useState } from 'react';
import { Alert, Button, Card, Form, Input, InputNumber, Skeleton } from 'antd';
import { SettingOutlined } from '@ant-design/icons';
import type { DashboardSummary } from '../../../api/types';
import { errorMessage } from '../../../api/client';
import { formatBRL } from '../shared/format';
import {
  BANNER_MAX,
  BANNER_RULES,
  MAX_PER_SELECTION_RULES,
  SAVED,
  SAVE_FAILED,
  useTimedNotice,
} from '../../../components/drawSettingsForm';
import { dashboardApi } from './dashboardApi';

export { BANNER_MAX, SAVED, SAVE_FAILED };
export const PARTLY_SAVED = 'Não foi possível atualizar as configurações agora.';

interface Values {
  price_cents: number;
  max_numbers_per_selection: number;
  banner_title: string;
}

/**
 * Ticket price (cents), max numbers per selection and the banner's promo phrase, saved with
 * ATUALIZAR (account spec §2, §5, §8): the price through POST /api/admin/dashboard/ticket-price
 * (only when it changed: it becomes the current draw's own price), the rest through POST /api/config.
 */
export function SettingsCard({ summary, loading, onSaved }: { summary: DashboardSummary | null; loading: boolean; onSaved(): void }) {
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  // Account spec §4, §9: the save message clears after 4 s.
  const [notice, show] = useTimedNotice();
  const price = Form.useWatch('price_cents', form);

  useEffect(() => {
    if (summary && !form.isFieldsTouched()) {
      form.setFieldsValue({
        price_cents: summary.price_cents,
        max_numbers_per_selection: summary.max_numbers_per_selection,
        banner_title: summary.banner_title ?? '',
      });
    }
  }, [summary, form]);

  const save = async (v: Values) => {
    if (!summary) return;
    setSaving(true);
    let priceSaved = false;
    try {
      if (v.price_cents !== summary.price_cents) {
        await dashboardApi.ticketPrice(v.price_cents);
        priceSaved = true;
      }
      await dashboardApi.saveConfig({
        banner_title: (v.banner_title ?? '').trim(),
        max_numbers_per_selection: v.max_numbers_per_selection,
      });
      show({ type: 'success', text: SAVED });
      // Untouched again (so the reloaded summary fills the form), showing what was saved meanwhile.
      form.resetFields();
      form.setFieldsValue({ ...v, banner_title: (v.banner_title ?? '').trim() });
      onSaved();
    } catch (err) {
      const reason = errorMessage(err, '');
      if (priceSaved) {
        show({
          type: 'error',
          text: PARTLY_SAVED,
          detail: `O preço do bilhete foi salvo; a frase do banner e o máximo por seleção não (POST /api/config).${reason ? ` ${reason}` : ''}`,
        });
        onSaved();
      } else {
        show({ type: 'error', text: SAVE_FAILED, detail: reason && reason !== SAVE_FAILED ? reason : undefined });
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card
      className="admin-card"
      title={
        <span>
          <SettingOutlined aria-hidden /> Preço e configurações
        </span>
      }
    >
      {loading && !summary ? (
        <div role="status" aria-label="Carregando as configurações">
          <Skeleton active paragraph={{ rows: 4 }} />
        </div>
      ) : !summary ? (
        <p className="muted">As configurações aparecem quando o painel carregar.</p>
      ) : (
        <Form form={form} layout="vertical" requiredMark={false} name="dashboard-settings" onFinish={(v) => void save(v)}>
          <div className="settings-row">
            <Form.Item
              name="price_cents"
              label="Preço do bilhete (centavos)"
              extra={Number.isFinite(price) ? `= ${formatBRL(price)} por número` : undefined}
              rules={[
                { required: true, message: 'Informe o preço do bilhete em centavos.' },
                { type: 'number', min: 0, message: 'O preço não pode ser negativo.' },
              ]}
            >
              <InputNumber min={0} max={100_000_000} precision={0} step={50} inputMode="numeric" className="settings-number" />
            </Form.Item>
            <Form.Item name="max_numbers_per_selection" label="Máximo de números por seleção" rules={MAX_PER_SELECTION_RULES}>
              <InputNumber min={1} max={10} precision={0} inputMode="numeric" className="settings-number" />
            </Form.Item>
          </div>
          <Form.Item name="banner_title" label="Frase promocional (banner)" rules={BANNER_RULES}>
            <Input.TextArea maxLength={BANNER_MAX} showCount autoSize={{ minRows: 2, maxRows: 4 }} />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={saving}>
            ATUALIZAR
          </Button>
          {notice && (
            <Alert className="settings-notice" type={notice.type} showIcon title={notice.text} description={notice.detail} role="status" />
          )}
        </Form>
      )}
    </Card>
  );
}
