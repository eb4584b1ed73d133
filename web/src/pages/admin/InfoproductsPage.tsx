import { useEffect, useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Flex,
  Form,
  Grid,
  Input,
  InputNumber,
  Modal,
  Select,
  Switch,
  Table,
  Tag,
  Typography,
  Upload,
} from 'antd';
import type { TableColumnsType, UploadProps } from 'antd';
import { EditOutlined, InboxOutlined, PlusOutlined, ReloadOutlined, UploadOutlined } from '@ant-design/icons';
import { ApiError, errorMessage } from '../../api/client';
import type { AdminCategory, AdminInfoproduct } from '../../api/types';
import { coverSrc, formatBRL } from '../../components/product/format';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { infoproductsApi } from './adminApi';
import { adminKeys, useKeptQuery } from './shared/queries';
import { infoproductStateLabel } from '../../statusLabels';
import { centsToReais, REAIS_RE } from './money';
import { PagedList } from './shared/PagedList';
import './admin-pages.css';

const PAGE = 50;
const LOAD_ERROR = 'Não foi possível carregar os infoprodutos.';
const SAVE_ERROR = 'Não foi possível salvar os dados do produto.';

interface FormValues {
  sku: string;
  title: string;
  subtitle?: string;
  description?: string;
  price?: string;
  prize?: string;
  total_numbers?: number | null;
  category_id?: number | null;
  cover_url?: string;
  active: boolean;
}

function toBody(v: FormValues) {
  const t = (s?: string) => (s ?? '').trim();
  return {
    sku: t(v.sku),
    title: t(v.title),
    subtitle: t(v.subtitle) || null,
    description: t(v.description) || null,
    price: t(v.price) || null,
    prize: t(v.prize) || null,
    total_numbers: v.total_numbers ?? 100,
    category_id: v.category_id ?? null,
    // Empty URLs are sent as null (account spec §5).
    cover_url: t(v.cover_url) || null,
    active: v.active,
  };
}

/** A file picker that sends one file with our token and shows the server's answer (error included). */
function FileUpload(props: {
  label: string;
  done: string;
  accept: string;
  hint: string;
  onUpload: (file: File) => Promise<AdminInfoproduct>;
  onDone: (p: AdminInfoproduct) => void;
}) {
  const { message } = App.useApp();
  const [error, setError] = useState<string | null>(null);
  const customRequest: UploadProps['customRequest'] = async (opts) => {
    setError(null);
    const file = opts.file as File;
    try {
      const p = await props.onUpload(file);
      opts.onSuccess?.(p);
      props.onDone(p);
      void message.success(props.done);
    } catch (e) {
      const text = errorMessage(e, 'Não foi possível enviar o arquivo.');
      setError(text);
      opts.onError?.(e instanceof Error ? e : new Error(text));
    }
  };
  return (
    <div className="admin-upload">
      <Upload accept={props.accept} maxCount={1} customRequest={customRequest} showUploadList={{ showRemoveIcon: false }}>
        <Button icon={<UploadOutlined />}>{props.label}</Button>
      </Upload>
      <Typography.Text type="secondary" className="admin-upload-hint">
        {props.hint}
      </Typography.Text>
      {error && <Alert type="error" showIcon title={error} className="admin-upload-error" />}
    </div>
  );
}

function ProductDialog(props: {
  open: boolean;
  product: AdminInfoproduct | null;
  categories: AdminCategory[];
  onClose: () => void;
  onSaved: (p: AdminInfoproduct) => void;
}) {
  const { message } = App.useApp();
  const [form] = Form.useForm<FormValues>();
  const [product, setProduct] = useState<AdminInfoproduct | null>(props.product);
  const saveProduct = useMutation({
    mutationFn: (a: { product: AdminInfoproduct | null; values: FormValues }) =>
      a.product ? infoproductsApi.update(a.product.id, toBody(a.values)) : infoproductsApi.create(toBody(a.values)),
    onSuccess: (saved, a) => {
      void message.success(a.product ? 'Salvo com sucesso.' : 'E-book criado. Agora envie o PDF e a capa.');
      // A new e-book stays open as an edit, so its PDF and cover can be sent right away.
      setProduct(saved);
      props.onSaved(saved);
      if (a.product) props.onClose();
    },
    onError: (e) => {
      if (e instanceof ApiError && e.details.length) {
        form.setFields(
          e.details.filter((d) => d.path).map((d) => ({ name: d.path.split('.')[0] as keyof FormValues, errors: [d.message] })),
        );
      }
    },
  });
  const saving = saveProduct.isPending;
  const error = saveProduct.error ? `Erro ao salvar: ${errorMessage(saveProduct.error, SAVE_ERROR)}` : null;
  const { reset } = saveProduct;

  useEffect(() => {
    if (!props.open) return;
    setProduct(props.product);
    reset();
    const p = props.product;
    form.resetFields();
    form.setFieldsValue(
      p
        ? {
            sku: p.sku ?? '',
            title: p.title,
            subtitle: p.subtitle ?? '',
            description: p.description ?? '',
            price: centsToReais(p.price_cents),
            prize: centsToReais(p.default_prize_cents),
            total_numbers: p.default_total_numbers,
            category_id: p.category_id,
            cover_url: p.cover_url ?? '',
            active: p.active,
          }
        : { active: true, total_numbers: 100 },
    );
  }, [props.open, props.product, form, reset]);

  async function save() {
    let values: FormValues;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    saveProduct.mutate({ product, values });
  }

  const uploaded = (p: AdminInfoproduct) => {
    setProduct(p);
    // The uploaded cover is now the product's cover_url: a later 'Salvar' must keep it.
    form.setFieldValue('cover_url', p.cover_url ?? '');
    props.onSaved(p);
  };

  return (
    <Modal
      open={props.open}
      title={product ? 'Editar e-book' : 'Novo e-book'}
      onCancel={props.onClose}
      destroyOnHidden
      width={640}
      footer={[
        <Button key="cancel" onClick={props.onClose}>
          {product && !props.product ? 'Fechar' : 'Cancelar'}
        </Button>,
        <Button key="save" type="primary" loading={saving} onClick={save}>
          Salvar
        </Button>,
      ]}
    >
      <Form form={form} layout="vertical" disabled={saving}>
        <Flex gap={12} wrap className="admin-form-row">
          <Form.Item
            name="sku"
            label="SKU"
            rules={[
              { required: true, whitespace: true, message: 'Informe o SKU.' },
              { pattern: /^\s*[A-Za-z0-9._-]+\s*$/, message: 'Use letras sem acento, números, ponto, hífen ou sublinhado.' },
            ]}
            className="admin-grow"
          >
            <Input placeholder="EBOOK-GUIA" maxLength={120} autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="title"
            label="Título"
            rules={[{ required: true, whitespace: true, message: 'Informe o título.' }]}
            className="admin-grow-2"
          >
            <Input maxLength={200} />
          </Form.Item>
        </Flex>
        <Form.Item name="subtitle" label="Subtítulo">
          <Input maxLength={300} />
        </Form.Item>
        <Form.Item name="description" label="Descrição">
          <Input.TextArea rows={3} maxLength={5000} />
        </Form.Item>
        <Flex gap={12} wrap className="admin-form-row">
          <Form.Item
            name="price"
            label="Preço (R$)"
            rules={[{ pattern: REAIS_RE, message: 'Use reais, por exemplo 19,90.' }]}
            extra="Preço de um e-book (e de um número do sorteio)."
            className="admin-grow"
          >
            <Input inputMode="decimal" placeholder="19,90" prefix="R$" />
          </Form.Item>
          <Form.Item
            name="prize"
            label="Prêmio (R$)"
            rules={[{ pattern: REAIS_RE, message: 'Use reais, por exemplo 1.500,00.' }]}
            className="admin-grow"
          >
            <Input inputMode="decimal" placeholder="1.500,00" prefix="R$" />
          </Form.Item>
          <Form.Item
            name="total_numbers"
            label="Quantidade de números"
            rules={[{ type: 'number', min: 1, max: 1000, message: 'Entre 1 e 1000.' }]}
            className="admin-grow"
          >
            <InputNumber min={1} max={1000} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Flex>
        <Flex gap={12} wrap className="admin-form-row">
          <Form.Item name="category_id" label="Categoria" className="admin-grow">
            <Select allowClear placeholder="Sem categoria" options={props.categories.map((c) => ({ value: c.id, label: c.name }))} />
          </Form.Item>
          <Form.Item name="active" label="Ativo" valuePropName="checked">
            <Switch checkedChildren="Sim" unCheckedChildren="Não" />
          </Form.Item>
        </Flex>
        <Form.Item name="cover_url" label="Endereço da capa" extra="Ou envie uma imagem abaixo.">
          <Input placeholder="https://…" maxLength={500} />
        </Form.Item>
      </Form>
      {error && <Alert type="error" showIcon title={error} className="admin-form-error" />}
      {product ? (
        <div className="admin-uploads" aria-label="Arquivos do e-book">
          <Typography.Title level={5}>Arquivos</Typography.Title>
          <p className="admin-file-state">
            {product.has_file ? (
              <>
                PDF enviado · sha256 <code>{product.file_sha256?.slice(0, 12)}…</code>
              </>
            ) : (
              'Nenhum PDF enviado: quem comprar ainda não tem o que baixar.'
            )}
          </p>
          <FileUpload
            label="Enviar PDF"
            done="PDF enviado."
            accept="application/pdf,.pdf"
            hint="Só PDF. Fica guardado em local privado: só quem comprou baixa, pela área do cliente."
            onUpload={(f) => infoproductsApi.uploadPdf(product.id, f, f.name)}
            onDone={uploaded}
          />
          <Flex gap={12} align="center" className="admin-cover-row">
            {product.cover_url && (
              <img src={coverSrc(product.cover_url) ?? undefined} alt={`Capa atual de ${product.title}`} className="admin-cover-thumb" />
            )}
            <FileUpload
              label="Enviar capa"
              done="Capa enviada."
              accept="image/png,image/jpeg,image/webp"
              hint="PNG, JPEG ou WebP (SVG não é aceito). É a imagem pública do produto."
              onUpload={(f) => infoproductsApi.uploadCover(product.id, f, f.name)}
              onDone={uploaded}
            />
          </Flex>
        </div>
      ) : (
        <p className="admin-file-state">
          <InboxOutlined aria-hidden="true" /> Salve o e-book para enviar o PDF e a capa.
        </p>
      )}
    </Modal>
  );
}

export default function InfoproductsPage() {
  useDocumentTitle('Cadastro de Infoprodutos');
  const { message, modal } = App.useApp();
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const [dialog, setDialog] = useState<{ open: boolean; product: AdminInfoproduct | null }>({ open: false, product: null });
  // Phones get one card per e-book (every column readable without scrolling sideways).
  const wide = Grid.useBreakpoint().md ?? true;

  const client = useQueryClient();
  // The search and the page are the key; the last list stays shown while the next loads or after a failure.
  const list = useKeptQuery([...adminKeys.infoproducts, { search, offset }], (signal) =>
    infoproductsApi.list({ search, limit: PAGE, offset }, signal),
  );
  const items = list.data?.items ?? null;
  const hasMore = list.data?.hasMore ?? false;
  const categories: AdminCategory[] = list.data?.categories ?? [];
  const loading = list.loading;
  const loadError = list.error && !list.isFetching ? errorMessage(list.error, LOAD_ERROR) : null;
  const refresh = () => void list.refetch();
  const changed = () => void client.invalidateQueries({ queryKey: adminKeys.infoproducts });
  const archiveProduct = useMutation({ mutationFn: (id: number) => infoproductsApi.archive(id), onSuccess: changed });

  function archive(p: AdminInfoproduct) {
    modal.confirm({
      title: `Arquivar "${p.title}"?`,
      content:
        p.open_draw_id != null
          ? `O e-book sai da loja e o sorteio aberto dele (#${String(p.open_draw_id).padStart(3, '0')}) é fechado: não vende mais números e espera o resultado. As vendas e os downloads de quem já comprou continuam.`
          : 'O e-book sai da loja. Os sorteios, as vendas e os downloads de quem já comprou continuam.',
      okText: 'Arquivar',
      okButtonProps: { danger: true },
      cancelText: 'Cancelar',
      onOk: async () => {
        try {
          await archiveProduct.mutateAsync(p.id);
          void message.success('E-book arquivado.');
        } catch (e) {
          void message.error(`Erro ao excluir: ${errorMessage(e, 'tente novamente.')}`);
        }
      },
    });
  }

  const columns: TableColumnsType<AdminInfoproduct> = [
    { title: 'SKU', dataIndex: 'sku', key: 'sku', render: (v: string | null) => v ?? '—' },
    {
      title: 'Título',
      dataIndex: 'title',
      key: 'title',
      render: (v: string, p) => (
        <span>
          {v}
          {!p.has_file && (
            <Tag color="warning" className="admin-inline-tag">
              sem PDF
            </Tag>
          )}
        </span>
      ),
    },
    {
      title: 'Preço',
      dataIndex: 'price_cents',
      key: 'price',
      align: 'right',
      render: (v: number | null) => (v == null ? '—' : formatBRL(v)),
    },
    { title: 'Prêmio', dataIndex: 'default_prize_cents', key: 'prize', align: 'right', render: (v: number) => formatBRL(v) },
    { title: 'Categoria', dataIndex: 'category_name', key: 'category', render: (v: string | null) => v ?? '—' },
    {
      title: 'Ativo',
      dataIndex: 'active',
      key: 'active',
      render: (v: boolean) => <Tag color={v ? 'success' : undefined}>{infoproductStateLabel(v)}</Tag>,
    },
    {
      title: 'Ações',
      key: 'actions',
      render: (_: unknown, p) => (
        <Flex gap={8} wrap>
          <Button size="small" icon={<EditOutlined />} onClick={() => setDialog({ open: true, product: p })}>
            Editar
          </Button>
          {p.active && (
            <Button size="small" danger onClick={() => archive(p)}>
              Arquivar
            </Button>
          )}
        </Flex>
      ),
    },
  ];

  const actionsCell = columns.find((c) => c.key === 'actions')!.render as (v: unknown, p: AdminInfoproduct, i: number) => ReactNode;
  const cards = (list: AdminInfoproduct[]) =>
    list.length === 0 ? (
      <Card className="admin-card">Nenhum item encontrado.</Card>
    ) : (
      <ul className="admin-cards" aria-label="E-books">
        {list.map((p, i) => (
          <li key={p.id}>
            <Card
              size="small"
              className="admin-card"
              title={p.title}
              extra={<Tag color={p.active ? 'success' : undefined}>{infoproductStateLabel(p.active)}</Tag>}
            >
              <dl className="admin-card-fields">
                <dt>SKU</dt>
                <dd>{p.sku ?? '—'}</dd>
                <dt>Preço</dt>
                <dd>{p.price_cents == null ? '—' : formatBRL(p.price_cents)}</dd>
                <dt>Prêmio</dt>
                <dd>{formatBRL(p.default_prize_cents)}</dd>
                <dt>Categoria</dt>
                <dd>{p.category_name ?? '—'}</dd>
                <dt>PDF</dt>
                <dd>{p.has_file ? 'enviado' : <Tag color="warning">sem PDF</Tag>}</dd>
              </dl>
              {actionsCell(null, p, i)}
            </Card>
          </li>
        ))}
      </ul>
    );

  return (
    <div className="page admin-page">
      <Typography.Title level={1} className="admin-page-title">
        Cadastro de Infoprodutos
      </Typography.Title>
      <Flex gap={8} wrap className="admin-toolbar">
        <Input.Search
          placeholder="Buscar por título ou SKU"
          allowClear
          enterButton="Buscar"
          aria-label="Buscar por título ou SKU"
          onSearch={(v) => {
            setOffset(0);
            setSearch(v.trim());
          }}
          className="admin-search"
        />
        <Button icon={<ReloadOutlined />} onClick={refresh}>
          Atualizar
        </Button>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setDialog({ open: true, product: null })}>
          Novo e-book
        </Button>
      </Flex>
      <PagedList<AdminInfoproduct>
        loadError={loadError}
        onRetry={refresh}
        items={items}
        loading={loading}
        wide={wide}
        cards={cards}
        offset={offset}
        hasMore={hasMore}
        pageSize={PAGE}
        onOffset={setOffset}
        table={
          <Table<AdminInfoproduct>
            rowKey="id"
            columns={columns}
            dataSource={items ?? []}
            loading={loading}
            pagination={false}
            scroll={{ x: 760 }}
            size="middle"
            locale={{ emptyText: 'Nenhum item encontrado.' }}
          />
        }
      />
      <ProductDialog
        open={dialog.open}
        product={dialog.product}
        categories={categories}
        onClose={() => setDialog({ open: false, product: null })}
        onSaved={changed}
      />
    </div>
  );
}
