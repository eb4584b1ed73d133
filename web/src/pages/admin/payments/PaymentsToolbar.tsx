import { useEffect, useState } from 'react';
import { Button, Flex, Input, Radio, Select } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { PAYMENT_STATUS } from '../../../statusLabels';

/** Which payments the page shows: the flagged ones still to review, the reviewed ones, or every payment. */
export type PaymentsView = 'todo' | 'done' | 'all';

/** The list query of a view (GET /api/admin/payments: flagged, reviewed). */
export function viewFilters(view: PaymentsView): { flagged?: boolean; reviewed?: boolean } {
  if (view === 'todo') return { flagged: true, reviewed: false };
  if (view === 'done') return { flagged: true, reviewed: true };
  return {};
}

/**
 * The payments page's controls (issue 26): 'A revisar' / 'Revisados' / 'Todos' one click each, the
 * status, and the search by name, e-mail, CPF, payment id or provider id (done by the server). A
 * search looks through every payment: it switches the view to 'Todos'.
 */
export function PaymentsToolbar({
  view,
  status,
  query,
  onView,
  onStatus,
  onSearch,
  onRefresh,
}: {
  view: PaymentsView;
  status: string;
  query: string;
  onView(v: PaymentsView): void;
  onStatus(s: string): void;
  onSearch(q: string): void;
  onRefresh(): void;
}) {
  const [text, setText] = useState(query);
  useEffect(() => setText(query), [query]);
  return (
    <div className="admin-toolbar payments-toolbar">
      <Radio.Group
        aria-label="Mostrar"
        optionType="button"
        buttonStyle="solid"
        value={view}
        onChange={(e) => onView(e.target.value as PaymentsView)}
        options={[
          { value: 'todo', label: 'A revisar' },
          { value: 'done', label: 'Revisados' },
          { value: 'all', label: 'Todos' },
        ]}
        className="payments-view"
      />
      <Flex gap={8} wrap>
        <Input.Search
          aria-label="Buscar pagamentos"
          placeholder="Nome, e-mail, CPF, nº do pagamento ou id do provedor"
          allowClear
          enterButton="Buscar"
          value={text}
          maxLength={120}
          onChange={(e) => {
            setText(e.target.value);
            // Cleared with its ×: back to the list without a search.
            if (!e.target.value && query) onSearch('');
          }}
          onSearch={(v) => onSearch(v.trim())}
          className="admin-search"
        />
        <Select<string>
          aria-label="Status"
          value={status}
          onChange={onStatus}
          className="admin-filter"
          options={[
            { value: '', label: 'Todos os status' },
            ...Object.entries(PAYMENT_STATUS).map(([value, s]) => ({ value, label: s.label })),
          ]}
        />
        <Button icon={<ReloadOutlined />} onClick={onRefresh}>
          Atualizar
        </Button>
      </Flex>
    </div>
  );
}
