import { useEffect, useState, type ReactNode } from 'react';
import { AutoComplete, Button, Card, Form, Grid, Input, Skeleton, Table, Tag, type TableColumnsType } from 'antd';
import { ClearOutlined, DownOutlined, LeftOutlined, ReloadOutlined, RightOutlined, SearchOutlined, UpOutlined } from '@ant-design/icons';
import { useSearchParams } from 'react-router-dom';
import type { AuditEntryView } from '../../api/types';
import { errorMessage } from '../../api/client';
import { AdminPageHeader } from './shared/AdminPageHeader';
import { formatDateTimeSeconds } from './shared/format';
import { auditApi } from './audit/auditApi';
import { ACTOR_LABELS, ENTITY_LABELS, actionLabel, diffFields, entityLabel } from './audit/describe';
import './audit/audit.css';
import { RetryAlert } from './shared/RetryAlert';
import { adminKeys, useKeptQuery } from './shared/queries';

const PAGE = 50;

/**
 * The audit log (/admin/auditoria): who changed what, newest first, filtered by entity
 * and id (kept in the address, so a page can link to the log of one record:
 * /admin/auditoria?entity=draw&entity_id=7). A row expands to its before/after, field by field.
 */
export default function AuditPage() {
  const [params, setParams] = useSearchParams();
  const entity = params.get('entity') ?? '';
  const entityId = params.get('entity_id') ?? '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const [form] = Form.useForm<{ entity: string; entity_id: string }>();
  // The filters and the page (from the address) are the key; a failure clears the rows.
  const q = useKeptQuery([...adminKeys.audit, { entity, entityId, offset }], (signal) =>
    auditApi.list({ entity, entity_id: entityId }, offset, PAGE, signal),
  );
  const rows = q.error ? null : (q.data?.items ?? null);
  const hasMore = q.data?.hasMore ?? false;
  const loading = q.loading;
  const loadError = q.isFetching ? null : q.error;
  const reload = () => void q.refetch();
  // Phones get one card per entry (the before/after needs the whole width); larger screens the table.
  const wide = Grid.useBreakpoint().md ?? true;

  useEffect(() => {
    form.setFieldsValue({ entity, entity_id: entityId });
  }, [form, entity, entityId]);

  const go = (next: { entity?: string; entity_id?: string; offset?: number }) => {
    const p = new URLSearchParams();
    const e = (next.entity ?? entity).trim();
    const id = (next.entity_id ?? entityId).trim();
    if (e) p.set('entity', e);
    if (id) p.set('entity_id', id);
    if (next.offset) p.set('offset', String(next.offset));
    setParams(p);
  };

  const when = (iso: string) => <time dateTime={iso}>{formatDateTimeSeconds(iso)}</time>;
  const who = (e: AuditEntryView) => (
    <span className="audit-actor">
      {e.actor_name ?? ACTOR_LABELS[e.actor] ?? e.actor}
      {e.actor_email && <span className="muted audit-sub">{e.actor_email}</span>}
      {e.actor_name && <span className="muted audit-sub">{ACTOR_LABELS[e.actor] ?? e.actor}</span>}
    </span>
  );
  const what = (action: string) => (
    <span>
      {actionLabel(action)}
      <code className="audit-sub audit-code">{action}</code>
    </span>
  );
  const record = (e: AuditEntryView) => (
    <Button
      type="link"
      size="small"
      className="audit-entity"
      onClick={() => go({ entity: e.entity, entity_id: e.entity_id ?? '', offset: 0 })}
      aria-label={`Ver só ${entityLabel(e.entity)}${e.entity_id ? ` #${e.entity_id}` : ''}`}
    >
      {entityLabel(e.entity)}
      {e.entity_id ? ` #${e.entity_id}` : ''}
    </Button>
  );

  const columns: TableColumnsType<AuditEntryView> = [
    { title: 'Quando', dataIndex: 'created_at', width: 170, render: (iso: string) => when(iso) },
    { title: 'Quem', key: 'actor', width: 200, render: (_: unknown, e) => who(e) },
    { title: 'Ação', dataIndex: 'action', width: 240, render: (action: string) => what(action) },
    { title: 'Registro', key: 'entity', width: 180, render: (_: unknown, e) => record(e) },
  ];

  const filtered = !!(entity || entityId);

  return (
    <div className="admin-audit">
      <AdminPageHeader
        title="Auditoria"
        subtitle="Quem alterou o quê, do mais recente ao mais antigo. Abra um registro para ver o antes e o depois."
      />
      <Card className="admin-card audit-filters">
        <Form
          form={form}
          layout="vertical"
          name="audit-filters"
          onFinish={(v) => go({ entity: v.entity ?? '', entity_id: v.entity_id ?? '', offset: 0 })}
        >
          <div className="audit-filter-row">
            <Form.Item
              name="entity"
              label="Entidade"
              rules={[{ pattern: /^[a-z0-9_.-]*$/i, message: 'Use letras, números, ponto, hífen ou sublinhado.' }]}
            >
              <AutoComplete
                allowClear
                placeholder="Todas (ex.: draw, user)"
                options={Object.entries(ENTITY_LABELS).map(([value, label]) => ({ value, label: `${label} (${value})` }))}
                filterOption={(input, option) =>
                  String(option?.label ?? '')
                    .toLowerCase()
                    .includes(input.toLowerCase())
                }
              />
            </Form.Item>
            <Form.Item name="entity_id" label="ID do registro" rules={[{ max: 100, message: 'Use no máximo 100 caracteres.' }]}>
              <Input allowClear placeholder="Todos" inputMode="text" />
            </Form.Item>
            <div className="audit-filter-actions">
              <Button type="primary" htmlType="submit" icon={<SearchOutlined />}>
                Filtrar
              </Button>
              <Button icon={<ClearOutlined />} disabled={!filtered} onClick={() => go({ entity: '', entity_id: '', offset: 0 })}>
                Limpar
              </Button>
            </div>
          </div>
        </Form>
      </Card>

      <Card
        className="admin-card"
        title={
          filtered
            ? `Registros de ${entity ? entityLabel(entity) : 'todas as entidades'}${entityId ? ` #${entityId}` : ''}`
            : 'Todos os registros'
        }
        extra={<Button icon={<ReloadOutlined />} onClick={reload} loading={loading && rows !== null} aria-label="Recarregar a auditoria" />}
      >
        {loading && rows === null ? (
          <div role="status" aria-label="Carregando a auditoria">
            <Skeleton active paragraph={{ rows: 6 }} />
          </div>
        ) : loadError ? (
          <RetryAlert title={errorMessage(loadError, 'Não foi possível carregar a auditoria.')} icon onRetry={reload} />
        ) : (
          <>
            {wide ? (
              <Table<AuditEntryView>
                rowKey="id"
                size="middle"
                columns={columns}
                dataSource={rows ?? []}
                loading={loading}
                pagination={false}
                scroll={{ x: 840 }}
                onRow={(e) => ({ 'data-audit-id': e.id }) as React.HTMLAttributes<HTMLElement>}
                expandable={{ expandedRowRender: (e) => <AuditDetail entry={e} />, columnTitle: <span className="sr-only">Detalhes</span> }}
                locale={{ emptyText: filtered ? 'Nenhum registro para este filtro.' : 'Nenhum registro de auditoria.' }}
              />
            ) : rows && rows.length > 0 ? (
              <ul className="audit-cards" aria-label="Registros" aria-busy={loading}>
                {rows.map((e) => (
                  <AuditCard key={e.id} entry={e} when={when(e.created_at)} who={who(e)} what={what(e.action)} record={record(e)} />
                ))}
              </ul>
            ) : (
              <p className="audit-empty muted">{filtered ? 'Nenhum registro para este filtro.' : 'Nenhum registro de auditoria.'}</p>
            )}
            {(offset > 0 || hasMore) && (
              <div className="audit-pager">
                <Button
                  icon={<LeftOutlined />}
                  disabled={offset === 0 || loading}
                  onClick={() => go({ offset: Math.max(0, offset - PAGE) })}
                >
                  Anterior
                </Button>
                <span className="muted">
                  {offset + 1}–{offset + (rows?.length ?? 0)}
                </span>
                <Button disabled={!hasMore || loading} onClick={() => go({ offset: offset + PAGE })}>
                  Próxima <RightOutlined />
                </Button>
              </div>
            )}
          </>
        )}
      </Card>
    </div>
  );
}

/** One entry on a phone: when, who, what and which record, with its before/after behind a button. */
function AuditCard({
  entry,
  when,
  who,
  what,
  record,
}: {
  entry: AuditEntryView;
  when: ReactNode;
  who: ReactNode;
  what: ReactNode;
  record: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const detailId = `audit-detail-${entry.id}`;
  return (
    <li className="audit-card" data-audit-id={entry.id}>
      <div className="audit-card-head">
        <span className="audit-card-what">{what}</span>
        {record}
      </div>
      <div className="audit-card-meta muted">{when}</div>
      <div className="audit-card-who">{who}</div>
      <Button
        size="small"
        type="text"
        className="audit-card-toggle"
        icon={open ? <UpOutlined /> : <DownOutlined />}
        aria-expanded={open}
        aria-controls={detailId}
        onClick={() => setOpen((o) => !o)}
      >
        {open ? 'Ocultar antes e depois' : 'Ver antes e depois'}
      </Button>
      {open && (
        <div id={detailId}>
          <AuditDetail entry={entry} />
        </div>
      )}
    </li>
  );
}

/** An entry's before/after field by field (changed fields marked), and the whole recorded data. */
function AuditDetail({ entry }: { entry: AuditEntryView }) {
  const hasDiff = entry.before != null || entry.after != null;
  const changes = hasDiff ? diffFields(entry.before, entry.after) : [];
  const extra = Object.fromEntries(Object.entries(entry.data).filter(([k]) => k !== 'before' && k !== 'after'));
  return (
    <div className="audit-detail">
      {hasDiff ? (
        <table className="audit-diff">
          <caption className="sr-only">Antes e depois</caption>
          <thead>
            <tr>
              <th scope="col">Campo</th>
              <th scope="col">Antes</th>
              <th scope="col">Depois</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.field} className={c.changed ? 'audit-diff-changed' : undefined}>
                <th scope="row">
                  {c.field}
                  {c.changed && (
                    <Tag color="gold" className="audit-changed-tag">
                      alterado
                    </Tag>
                  )}
                </th>
                <td>{c.before || <span className="muted">{entry.before == null ? '(não existia)' : '—'}</span>}</td>
                <td>{c.after || <span className="muted">{entry.after == null ? '(removido)' : '—'}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {Object.keys(extra).length > 0 && (
        <>
          <p className="audit-detail-label">{hasDiff ? 'Outros dados' : 'Dados registrados'}</p>
          <pre className="audit-json">{JSON.stringify(extra, null, 2)}</pre>
        </>
      )}
      {!hasDiff && Object.keys(extra).length === 0 && <p className="muted">Nenhum dado além da ação.</p>}
    </div>
  );
}
