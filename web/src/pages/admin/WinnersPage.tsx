import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Alert, App, Button, Form, Grid, Input, Modal, Switch, Table, Tag, type TableColumnsType } from 'antd';
import { EditOutlined } from '@ant-design/icons';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { Winner } from '../../api/types';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { formatDate, formatPhone, pad2 } from '../account/format';
import { historyApi, isHttpUrl, pad3 } from './historyApi';
import { LoadMoreList } from './shared/LoadMoreList';
import { adminKeys, useLoadMoreList } from './shared/queries';
import './admin-history.css';

/** How long ago the prize was won: 'hoje', 'há 1 dia', 'há N dias'. */
const sinceText = (days: number) => (days === 0 ? 'hoje' : `há ${days} ${days === 1 ? 'dia' : 'dias'}`);

const LOAD_FAILED = 'Não foi possível carregar os vencedores.';
const SAVE_FAILED = 'Não foi possível salvar o prêmio.';
const LINK_MESSAGE = 'O link do produto deve ser um endereço http:// ou https:// válido.';

interface PrizeForm {
  product_name: string;
  product_link: string;
  redeemed: boolean;
}

/** 'Editar prêmio': product name, product link (http/https) and redeemed; Salvar sends the PATCH. */
function PrizeDialog({ winner, onClose, onSaved }: { winner: Winner | null; onClose(): void; onSaved(w: Winner): void }) {
  const [form] = Form.useForm<PrizeForm>();
  const { message } = App.useApp();
  const update = useMutation({
    mutationFn: (a: { drawId: number; v: PrizeForm }) =>
      historyApi.updatePrize(a.drawId, {
        product_name: a.v.product_name.trim() || null,
        product_link: a.v.product_link.trim() || null,
        redeemed: a.v.redeemed,
      }),
    onSuccess: (saved) => {
      onSaved(saved);
      void message.success('Prêmio salvo.');
    },
  });
  const saving = update.isPending;
  const error = update.error ? errorMessage(update.error, SAVE_FAILED) : null;

  const save = async () => {
    if (!winner) return;
    const v = await form.validateFields().catch(() => null);
    if (!v) return;
    update.mutate({ drawId: winner.draw_id, v });
  };

  return (
    <Modal
      open={!!winner}
      title={winner ? `Prêmio do sorteio Nº ${pad3(winner.draw_id)}` : ''}
      onCancel={onClose}
      onOk={save}
      okText="Salvar"
      cancelText="Cancelar"
      confirmLoading={saving}
      destroyOnHidden
      afterOpenChange={(open) => {
        if (open && winner) {
          form.setFieldsValue({
            product_name: winner.product_name ?? '',
            product_link: winner.product_link ?? '',
            redeemed: winner.redeemed,
          });
          update.reset();
        }
      }}
    >
      {winner && (
        <p className="adm-muted">
          Vencedor: {winner.winner_name}, número {pad2(winner.winner_number)}
        </p>
      )}
      <Form
        form={form}
        layout="vertical"
        preserve={false}
        onFinish={save}
        initialValues={{ product_name: '', product_link: '', redeemed: false }}
      >
        <Form.Item
          name="product_name"
          label="Nome do produto"
          rules={[{ max: 200, message: 'O nome do produto pode ter no máximo 200 caracteres.' }]}
        >
          <Input maxLength={200} placeholder="Ex.: Kindle 11ª geração" />
        </Form.Item>
        <Form.Item
          name="product_link"
          label="Link do produto"
          rules={[
            {
              validator: (_, v: string) => (!v || !v.trim() || isHttpUrl(v) ? Promise.resolve() : Promise.reject(new Error(LINK_MESSAGE))),
            },
          ]}
        >
          <Input inputMode="url" placeholder="https://…" maxLength={2000} />
        </Form.Item>
        <Form.Item name="redeemed" label="Prêmio resgatado" valuePropName="checked">
          <Switch checkedChildren="RESGATADO" unCheckedChildren="NÃO RESGATADO" />
        </Form.Item>
      </Form>
      {error && <Alert type="error" showIcon title={error} />}
    </Modal>
  );
}

function PrizeTag({ status }: { status: Winner['status'] }) {
  return <Tag className={status === 'RESGATADO' ? 'adm-tag-ok' : 'adm-tag-wait'}>{status}</Tag>;
}

function EditButton({ w, onEdit }: { w: Winner; onEdit(w: Winner): void }) {
  return (
    <Button size="small" icon={<EditOutlined />} onClick={() => onEdit(w)} aria-label={`Editar prêmio do sorteio ${pad3(w.draw_id)}`}>
      Editar
    </Button>
  );
}

export default function WinnersPage() {
  useDocumentTitle('Vencedores');
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<Winner | null>(null);
  const list = useLoadMoreList(adminKeys.winners, historyApi.winners, search, LOAD_FAILED);

  // From md on, a fixed width lets headers and the prize link wrap so the table fits beside the menu.
  const wide = Grid.useBreakpoint().md ?? true;
  const columns: TableColumnsType<Winner> = [
    {
      title: 'USUÁRIO',
      key: 'user',
      width: 220,
      render: (_: unknown, w) => (
        <span>
          <strong>{w.winner_name}</strong>
          <div className="adm-muted adm-break">{w.winner_email}</div>
          {w.winner_phone && <div className="adm-muted">{formatPhone(w.winner_phone)}</div>}
          {/* Phones: the hidden columns' essentials under the name. */}
          <div className="adm-xs-only">
            <Link to={`/resultado/${w.draw_id}`}>Nº {pad3(w.draw_id)}</Link> · número <strong>{pad2(w.winner_number)}</strong> ·{' '}
            {sinceText(w.days_since)}
            {w.product_name && <div>{w.product_name}</div>}
            <div className="adm-xs-actions">
              <PrizeTag status={w.status} />
              <EditButton w={w} onEdit={setEditing} />
            </div>
          </div>
        </span>
      ),
    },
    {
      title: 'SORTEIO',
      key: 'draw',
      responsive: ['sm'],
      render: (_: unknown, w) => (
        <span>
          <Link to={`/resultado/${w.draw_id}`}>Nº {pad3(w.draw_id)}</Link>
          {w.contest_number != null && <div className="adm-muted">Concurso {w.contest_number}</div>}
        </span>
      ),
    },
    { title: 'NÚMERO', dataIndex: 'winner_number', key: 'n', responsive: ['sm'], render: (n: number) => <strong>{pad2(n)}</strong> },
    { title: 'DATA DO SORTEIO', dataIndex: 'realized_at', key: 'date', render: formatDate, responsive: ['md'] },
    {
      title: 'PRÊMIO',
      dataIndex: 'status',
      key: 'status',
      responsive: ['sm'],
      render: (s: Winner['status']) => <PrizeTag status={s} />,
    },
    {
      title: 'DIAS DESDE',
      dataIndex: 'days_since',
      key: 'days',
      responsive: ['sm'],
      render: (d: number) => (d === 0 ? 'hoje' : `${d} ${d === 1 ? 'dia' : 'dias'}`),
    },
    {
      title: 'PRODUTO',
      key: 'product',
      width: 190,
      responsive: ['md'],
      render: (_: unknown, w) =>
        w.product_name || w.product_link ? (
          <span>
            {w.product_name ?? <span className="adm-muted">Sem nome</span>}
            {w.product_link && (
              <div className="adm-prize-link">
                <a href={w.product_link} target="_blank" rel="noopener noreferrer">
                  {w.product_link}
                </a>
              </div>
            )}
          </span>
        ) : (
          <span className="adm-muted">Não informado</span>
        ),
    },
    {
      title: '',
      key: 'edit',
      responsive: ['sm'],
      render: (_: unknown, w) => <EditButton w={w} onEdit={setEditing} />,
    },
  ];

  return (
    <div className="page adm-page">
      <h1>Vencedores</h1>
      <p className="adm-sub">Sorteios realizados com vencedor e o prêmio de cada um.</p>
      <div className="adm-toolbar">
        <Input.Search
          allowClear
          placeholder="Buscar por nome, e-mail, sorteio ou concurso"
          aria-label="Buscar vencedores"
          enterButton="Buscar"
          maxLength={100}
          onSearch={(v) => setSearch(v.trim())}
        />
      </div>
      <LoadMoreList
        list={list}
        table={
          <Table<Winner>
            rowKey="draw_id"
            columns={columns}
            dataSource={list.items}
            pagination={false}
            size="middle"
            tableLayout="auto"
            scroll={{ x: wide ? 900 : 'max-content' }}
            locale={{ emptyText: list.error ? 'Não foi possível carregar.' : 'Nenhum vencedor encontrado.' }}
          />
        }
      />
      <PrizeDialog
        winner={editing}
        onClose={() => setEditing(null)}
        onSaved={(w) => {
          list.replace((x) => x.draw_id === w.draw_id, w);
          setEditing(null);
        }}
      />
    </div>
  );
}
