import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Alert, App, Button, Checkbox, Form, Input, Modal, Popconfirm, Skeleton, Space, Table, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { DeleteOutlined, EditOutlined, FieldNumberOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { errorMessage } from '../../api/client';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import type { AdminUser } from '../../api/types';
import { formatBRL } from '../../components/product/format';
import { formatDate, formatPhone } from '../account/format';
import { AssignNumbersDialog } from './users/AssignNumbersDialog';
import { reaisToCents, usersApi, USERS_PAGE_SIZE, type UserPayload } from './users/usersApi';
import { adminKeys, useLoadMoreList } from './shared/queries';
import './users/admin-users.css';

/**
 * 'Cadastro de Clientes' (/admin/AdminClientesUser, account spec §2): the customer table with
 * search (name, e-mail, phone or coupon), pages of 500 with 'Carregar mais', the Novo/Editar
 * dialog (a balance change asks for the reason of the ledger adjustment), 'Excluir' with its
 * confirmation, and 'Atribuir números' with the legend grid of the draw's board.
 */

interface FormValues {
  name: string;
  email: string;
  phone: string;
  is_admin: boolean;
  coupon_code: string;
  balance: string;
  coupon_reason: string;
}

const loadPage = (q: { search: string; offset: number }, signal: AbortSignal) => usersApi.list(q, signal);

const centsToReais = (cents: number) => (cents / 100).toFixed(2).replace('.', ',');

export default function AdminUsersPage() {
  useDocumentTitle('Cadastro de Clientes');
  const { message } = App.useApp();
  const [search, setSearch] = useState('');
  // Pages of 500; a new search keeps the rows shown until its answer comes.
  const list = useLoadMoreList(adminKeys.users, loadPage, search, 'Não foi possível carregar os usuários.', USERS_PAGE_SIZE, true);
  const { items, hasMore, refresh } = list;
  const loading = list.fetching;
  const loadError = list.error;
  /** 'Buscar': another text loads its list; the same text loads it again. */
  const load = (term: string) => (term === search ? void refresh() : setSearch(term));
  const [selected, setSelected] = useState<AdminUser | null>(null);
  const [editing, setEditing] = useState<AdminUser | 'new' | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [assignFor, setAssignFor] = useState<AdminUser | null>(null);
  const [form] = Form.useForm<FormValues>();
  const balance = Form.useWatch('balance', form);

  // Saving the dialog: the user's row is selected and the list loads again (its first page).
  const saveUser = useMutation({
    mutationFn: async (a: { editing: AdminUser | 'new'; payload: UserPayload }) => {
      if (a.editing === 'new') {
        // The saved user comes at the top level, with the message that names the temporary password.
        const { temporary_password: _shownInMessage, message: text, ...user } = await usersApi.create(a.payload);
        setCreated(text);
        setSelected(user);
      } else {
        const {
          message: text,
          coupon_adjustment: _adjustment,
          ...user
        } = await usersApi.update(a.editing.id, { ...a.payload, coupon_code: a.editing.coupon_code });
        message.success(text);
        setSelected(user);
      }
      setEditing(null);
      await refresh();
    },
  });
  const saving = saveUser.isPending;
  const saveError = saveUser.error ? errorMessage(saveUser.error, 'Não foi possível salvar.') : null;
  const removeUser = useMutation({ mutationFn: (id: number) => usersApi.remove(id) });

  const openDialog = (u: AdminUser | 'new') => {
    saveUser.reset();
    setEditing(u);
    form.setFieldsValue(
      u === 'new'
        ? { name: '', email: '', phone: '', is_admin: false, coupon_code: '', balance: '0,00', coupon_reason: '' }
        : {
            name: u.name,
            email: u.email,
            phone: u.phone ?? '',
            is_admin: u.is_admin,
            coupon_code: u.coupon_code ?? '',
            balance: centsToReais(u.coupon_value_cents),
            coupon_reason: '',
          },
    );
  };

  const balanceChanged = editing !== null && editing !== 'new' && reaisToCents(balance) !== editing.coupon_value_cents;

  const save = async () => {
    let v: FormValues;
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    const cents = reaisToCents(v.balance) as number;
    const payload: UserPayload = {
      name: v.name.trim(),
      email: v.email.trim(),
      phone: v.phone.trim(),
      is_admin: !!v.is_admin,
      coupon_value_cents: cents,
      ...(v.coupon_reason?.trim() ? { coupon_reason: v.coupon_reason.trim() } : {}),
    };
    if (editing) saveUser.mutate({ editing, payload });
  };

  const remove = async (u: AdminUser) => {
    try {
      const r = await removeUser.mutateAsync(u.id);
      message.success(
        r.outcome === 'anonymized'
          ? 'Excluído. A conta tinha compras: os dados pessoais foram anonimizados e os registros financeiros mantidos.'
          : r.message,
      );
      if (selected?.id === u.id) setSelected(null);
      await refresh();
    } catch (e) {
      message.error(errorMessage(e, 'Não foi possível excluir.'));
    }
  };

  const columns: ColumnsType<AdminUser> = [
    { title: 'ID', dataIndex: 'id', width: 52 },
    { title: 'NOME', dataIndex: 'name', width: 124, className: 'cell-wrap' },
    { title: 'EMAIL', dataIndex: 'email', className: 'cell-wrap' },
    { title: 'CELULAR', dataIndex: 'phone', render: (p: string | null) => formatPhone(p), width: 140 },
    { title: 'CUPOM', dataIndex: 'coupon_code', width: 96, className: 'cell-wrap', render: (c: string | null) => c ?? '—' },
    { title: 'SALDO', dataIndex: 'coupon_value_cents', render: (c: number) => formatBRL(c), width: 96, align: 'right' },
    { title: 'ADMIN', dataIndex: 'is_admin', render: (a: boolean) => (a ? <strong>Sim</strong> : 'Não'), width: 80 },
    { title: 'CRIADO EM', dataIndex: 'created_at', render: (d: string) => formatDate(d), width: 104 },
    {
      title: 'AÇÕES',
      key: 'actions',
      width: 112,
      fixed: 'right',
      render: (_: unknown, u) => (
        <Space size={4} onClick={(e) => e.stopPropagation()}>
          {/* Each icon-only button's name is its tooltip's text (WCAG 2.5.3, label in name). */}
          <Tooltip title={`Editar ${u.name}`}>
            <Button size="small" icon={<EditOutlined />} onClick={() => openDialog(u)} aria-label={`Editar ${u.name}`} />
          </Tooltip>
          <Tooltip title={`Atribuir números a ${u.name}`}>
            <Button
              size="small"
              icon={<FieldNumberOutlined />}
              onClick={() => setAssignFor(u)}
              aria-label={`Atribuir números a ${u.name}`}
            />
          </Tooltip>
          <Popconfirm
            title="Excluir este usuário?"
            okText="Excluir"
            cancelText="Cancelar"
            okButtonProps={{ danger: true }}
            onConfirm={() => remove(u)}
          >
            <Tooltip title={`Excluir ${u.name}`}>
              <Button size="small" danger icon={<DeleteOutlined />} aria-label={`Excluir ${u.name}`} />
            </Tooltip>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <div className="page admin-users">
      <Typography.Title level={1} className="admin-users__title">
        Cadastro de Clientes
      </Typography.Title>

      {created && (
        <Alert
          type="success"
          showIcon
          closable
          onClose={() => setCreated(null)}
          className="admin-users__alert"
          message={
            <Typography.Text copyable={{ text: created.replace(/^.*Senha padrão: /, ''), tooltips: ['Copiar senha', 'Copiada'] }}>
              {created}
            </Typography.Text>
          }
          description="A senha aparece só agora. O cliente também recebeu por e-mail um link para criar a própria senha."
        />
      )}

      <div className="admin-users__toolbar">
        <Input.Search
          allowClear
          placeholder="Buscar por nome, e-mail, celular ou cupom"
          aria-label="Buscar por nome, e-mail, celular ou cupom"
          enterButton="Buscar"
          maxLength={100}
          onSearch={(v) => load(v.trim())}
        />
        <Space>
          <Button icon={<ReloadOutlined />} onClick={() => void refresh()}>
            Atualizar
          </Button>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => openDialog('new')}>
            Novo
          </Button>
        </Space>
      </div>

      {selected && (
        <p className="admin-users__selected" aria-live="polite">
          Selecionado:{' '}
          <strong>
            #{selected.id} {selected.name}
          </strong>{' '}
          ({selected.email})
        </p>
      )}

      {loadError && (
        <Alert
          type="error"
          showIcon
          className="admin-users__alert"
          message={loadError}
          action={
            <Button size="small" onClick={() => void refresh()}>
              Tentar de novo
            </Button>
          }
        />
      )}

      {loading && !items.length ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : (
        <Table<AdminUser>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={items}
          loading={loading}
          // Fits the console beside its menu at 1280 (about 910 px): e-mails wrap in what is left.
          scroll={{ x: 900 }}
          pagination={{ pageSize: 25, showSizeChanger: false, hideOnSinglePage: true }}
          locale={{ emptyText: 'Nenhum usuário encontrado.' }}
          rowClassName={(u) => (u.id === selected?.id ? 'admin-users__row--selected' : '')}
          onRow={(u) => ({ onClick: () => setSelected(u) })}
        />
      )}
      {hasMore && (
        <div className="admin-users__more">
          <Button onClick={list.loadMore} loading={loading}>
            Carregar mais
          </Button>
        </div>
      )}

      <Modal
        open={editing !== null}
        title={editing === 'new' ? 'Novo usuário' : 'Editar usuário'}
        okText="Salvar"
        cancelText="Cancelar"
        confirmLoading={saving}
        onOk={save}
        onCancel={() => setEditing(null)}
        forceRender
      >
        <Form form={form} layout="vertical" requiredMark={false} onFinish={save}>
          <Form.Item name="name" label="Nome" rules={[{ required: true, whitespace: true, message: 'Informe seu nome completo.' }]}>
            <Input autoComplete="off" maxLength={120} />
          </Form.Item>
          <Form.Item
            name="email"
            label="E-mail"
            rules={[
              { required: true, message: 'E-mail inválido.' },
              { pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, message: 'E-mail inválido.' },
            ]}
          >
            <Input type="email" autoComplete="off" maxLength={254} />
          </Form.Item>
          <Form.Item
            name="phone"
            label="Celular"
            rules={[
              {
                validator: (_, v: string) =>
                  !v || /^\d{10,13}$/.test(String(v).replace(/\D/g, ''))
                    ? Promise.resolve()
                    : Promise.reject(new Error('Informe um telefone válido com DDD.')),
              },
            ]}
          >
            <Input inputMode="tel" autoComplete="off" placeholder="(41) 99999-9999" maxLength={20} />
          </Form.Item>
          <Form.Item name="is_admin" valuePropName="checked">
            <Checkbox>Administrador</Checkbox>
          </Form.Item>
          <Form.Item
            name="coupon_code"
            label="Código do Cupom"
            extra={editing === 'new' ? 'Gerado automaticamente ao salvar.' : 'Gerado pelo sistema; não pode ser alterado.'}
          >
            <Input disabled />
          </Form.Item>
          <Form.Item
            name="balance"
            label="Saldo (R$)"
            rules={[
              {
                validator: (_, v: string) =>
                  reaisToCents(v) !== null ? Promise.resolve() : Promise.reject(new Error('Informe o saldo em reais, por exemplo 12,50.')),
              },
            ]}
          >
            <Input inputMode="decimal" prefix="R$" maxLength={14} />
          </Form.Item>
          {balanceChanged && (
            <Form.Item
              name="coupon_reason"
              label="Motivo do ajuste de saldo"
              extra="O saldo muda por um lançamento de ajuste no histórico do cupom, com este motivo."
              rules={[{ required: true, whitespace: true, min: 3, message: 'Informe o motivo do ajuste de saldo.' }]}
            >
              <Input maxLength={500} />
            </Form.Item>
          )}
          {saveError && <Alert type="error" showIcon message={saveError} />}
          <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
        </Form>
      </Modal>

      <AssignNumbersDialog user={assignFor} onClose={() => setAssignFor(null)} />
    </div>
  );
}
