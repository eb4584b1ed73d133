import { useEffect } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Form, Input, InputNumber, Modal, Select } from 'antd';
import type { AdminDraw, AdminInfoproduct } from '../../../api/types';
import { failureText } from '../shared/failure';
import { formatBRL } from '../shared/format';
import { dashboardApi, type DrawBody } from './dashboardApi';
import { adminKeys } from '../shared/queries';

export const SAVE_FAILED = 'Falha ao salvar o sorteio.';

/** The form's values: the body it sends. */
type Values = DrawBody;

/**
 * 'Novo sorteio' / 'Editar sorteio' (account spec §2, §5): title, status, price in cents (picking an
 * e-book copies its price), quantity of numbers (1-1000), limit per user (0 = no limit) and the
 * optional e-book. A draw already drawn keeps its status (the field is locked).
 */
export function DrawDialog({
  open,
  draw,
  onClose,
  onSaved,
}: {
  open: boolean;
  /** The draw being edited; null for a new one. */
  draw: AdminDraw | null;
  onClose(): void;
  onSaved(saved: AdminDraw, created: boolean): void;
}) {
  const [form] = Form.useForm<Values>();
  const price = Form.useWatch('price_cents', form);
  const drawn = draw?.status === 'sorteado';
  // The e-book list, loaded each time the dialog opens.
  const productsQ = useQuery({
    queryKey: adminKeys.drawInfoproducts,
    queryFn: ({ signal }) => dashboardApi.infoproducts(signal),
    enabled: open,
  });
  const products: AdminInfoproduct[] = productsQ.data ?? [];
  const productsState = productsQ.isFetching || productsQ.isPending ? 'loading' : productsQ.isError ? 'failed' : 'ready';
  const save = useMutation({
    mutationFn: (body: DrawBody) => (draw ? dashboardApi.updateDraw(draw.id, body) : dashboardApi.createDraw(body)),
    onSuccess: (saved) => onSaved(saved, !draw),
  });
  const saving = save.isPending;
  const error = save.error ? failureText(SAVE_FAILED, save.error) : null;
  const { reset } = save;

  useEffect(() => {
    if (!open) return;
    reset();
    form.resetFields();
    form.setFieldsValue(
      draw
        ? {
            title: draw.title,
            status: draw.status === 'open' ? 'open' : 'closed',
            price_cents: draw.ticket_price_cents_override ?? 0,
            numbers_total: draw.total_numbers,
            max_per_user: draw.max_per_user,
            infoproduct_id: draw.infoproduct_id,
          }
        : { title: '', status: 'open', price_cents: 0, numbers_total: 100, max_per_user: 1, infoproduct_id: null },
    );
  }, [open, draw, form, reset]);

  const pickProduct = (id: number | null | undefined) => {
    const p = products.find((x) => x.id === id);
    if (p && p.price_cents != null) form.setFieldValue('price_cents', p.price_cents);
  };

  const submit = (v: Values) => {
    const body: DrawBody = {
      title: v.title.trim(),
      status: v.status,
      price_cents: Math.max(0, Math.floor(v.price_cents ?? 0)),
      numbers_total: Math.max(1, Math.floor(v.numbers_total ?? 100)),
      max_per_user: Math.max(0, Math.floor(v.max_per_user ?? 0)),
      infoproduct_id: v.infoproduct_id ?? null,
    };
    // A drawn draw's status is final: not sent, so the rest of the edit still applies.
    if (drawn) delete (body as Partial<DrawBody>).status;
    save.mutate(body);
  };

  const productOptions = products.map((p) => ({
    value: p.id,
    label: `${p.title} · #${p.id} · ${p.price_cents != null ? formatBRL(p.price_cents) : 'sem preço'}${p.active ? '' : ' · inativo'}`,
  }));
  // The edited draw's e-book stays selectable even beyond the first 200 of the list.
  if (draw?.infoproduct_id && !products.some((p) => p.id === draw.infoproduct_id)) {
    productOptions.unshift({
      value: draw.infoproduct_id,
      label: `${draw.ip_title ?? 'E-book'} · #${draw.infoproduct_id} · ${draw.ip_price_cents != null ? formatBRL(draw.ip_price_cents) : 'sem preço'}`,
    });
  }

  return (
    <Modal
      open={open}
      title={draw ? 'Editar sorteio' : 'Novo sorteio'}
      okText="Salvar"
      cancelText="Cancelar"
      confirmLoading={saving}
      onOk={() => form.submit()}
      onCancel={onClose}
      forceRender
    >
      <Form form={form} layout="vertical" requiredMark={false} name="draw-dialog" onFinish={(v) => void submit(v)}>
        <Form.Item
          name="title"
          label="Título"
          rules={[
            { required: true, whitespace: true, message: 'Informe o título do sorteio.' },
            { max: 200, message: 'O título pode ter no máximo 200 caracteres.' },
          ]}
        >
          <Input maxLength={200} />
        </Form.Item>
        <Form.Item name="status" label="Status" extra={drawn ? 'Sorteio já realizado: o status não muda mais.' : undefined}>
          <Select
            disabled={drawn}
            options={[
              { value: 'open', label: 'Aberto (open)' },
              { value: 'closed', label: 'Fechado (closed)' },
            ]}
          />
        </Form.Item>
        <Form.Item
          name="price_cents"
          label="Preço (centavos)"
          extra={
            <>
              Se selecionar um infoproduto, o preço virá dele.
              <br />
              {price ? `= ${formatBRL(price)} por número.` : '0 = preço do infoproduto ou o preço padrão do bilhete.'}
            </>
          }
          rules={[{ type: 'number', min: 0, message: 'O preço não pode ser negativo.' }]}
        >
          <InputNumber min={0} max={100_000_000} precision={0} inputMode="numeric" style={{ width: '100%' }} />
        </Form.Item>
        <div className="draw-dialog-row">
          <Form.Item
            name="numbers_total"
            label="Quantidade de números"
            rules={[
              { required: true, message: 'Informe a quantidade de números.' },
              { type: 'number', min: 1, max: 1000, message: 'Informe de 1 a 1000 números.' },
            ]}
          >
            <InputNumber min={1} max={1000} precision={0} inputMode="numeric" style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item
            name="max_per_user"
            label="Limite por usuário"
            extra="0 = sem limite"
            rules={[
              { required: true, message: 'Informe o limite por usuário.' },
              { type: 'number', min: 0, max: 1000, message: 'Informe de 0 a 1000.' },
            ]}
          >
            <InputNumber min={0} max={1000} precision={0} inputMode="numeric" style={{ width: '100%' }} />
          </Form.Item>
        </div>
        <Form.Item
          name="infoproduct_id"
          label="Infoproduto (opcional)"
          extra={productsState === 'failed' ? 'Não foi possível carregar os infoprodutos.' : undefined}
          validateStatus={productsState === 'failed' ? 'warning' : undefined}
        >
          <Select
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            placeholder="Nenhum"
            loading={productsState === 'loading'}
            options={productOptions}
            onChange={(id) => pickProduct(id as number | null)}
            notFoundContent={productsState === 'loading' ? 'Carregando…' : 'Nenhum infoproduto encontrado.'}
          />
        </Form.Item>
        {error && <Alert type="error" showIcon title={error} role="alert" />}
      </Form>
    </Modal>
  );
}
