import { Button, Skeleton } from 'antd';
import { CheckOutlined, ClearOutlined } from '@ant-design/icons';
import { pad2 } from '../board';

export interface SelectionPanelProps {
  signedIn: boolean;
  /** Remaining allowance; null while it loads or when it could not be loaded. */
  remaining: number | null;
  allowanceLoading: boolean;
  selected: number[];
  maxSelection: number;
  onRemove(n: number): void;
  onClear(): void;
  onConfirm(): void;
  confirmDisabled: boolean;
  checking: boolean;
}

/** What the visitor may pick, what they picked, and LIMPAR SELEÇÃO / CONFIRMAR (storefront spec §2 "Number board"). */
export function SelectionPanel(p: SelectionPanelProps) {
  return (
    <section className="numbers-panel" aria-label="Sua seleção">
      <div className="numbers-panel-info">
        {p.signedIn ? (
          p.allowanceLoading ? (
            <Skeleton.Input active size="small" style={{ width: 220 }} />
          ) : p.remaining !== null ? (
            <p className="numbers-allowance" aria-live="polite">
              Você pode escolher {p.remaining} {p.remaining === 1 ? 'número' : 'números'} agora
            </p>
          ) : null
        ) : (
          <p className="numbers-allowance">Escolha seus números e entre na sua conta para confirmar.</p>
        )}
        <p className="numbers-count" aria-live="polite">
          Selecionados: <strong>{p.selected.length}</strong>
          <span className="muted"> · até {p.maxSelection} por vez</span>
        </p>
      </div>

      {p.selected.length > 0 && (
        <ul className="numbers-chips" aria-label="Números selecionados">
          {p.selected.map((n) => (
            <li key={n}>
              <button type="button" className="numbers-chip" onClick={() => p.onRemove(n)} aria-label={`Remover ${pad2(n)} da seleção`}>
                {pad2(n)} <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}

      <div className="numbers-actions">
        <Button icon={<ClearOutlined />} onClick={p.onClear} disabled={!p.selected.length || p.checking}>
          LIMPAR SELEÇÃO
        </Button>
        <Button type="primary" icon={<CheckOutlined />} onClick={p.onConfirm} disabled={p.confirmDisabled} loading={p.checking}>
          CONFIRMAR
        </Button>
      </div>
    </section>
  );
}
