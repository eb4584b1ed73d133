import { useId, useState, type Ref } from 'react';
import { CheckOutlined, ClearOutlined, DownOutlined, UpOutlined } from '@ant-design/icons';
import { PlainButton } from '../../../components/plain/Button';
import { SkeletonBlock } from '../../../components/plain/Skeleton';
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
  /** The panel's box: the page keeps that much scroll clearance under the board (phones). */
  panelRef?: Ref<HTMLElement>;
}

/**
 * What the visitor may pick, what they picked, and LIMPAR SELEÇÃO / CONFIRMAR (storefront spec §2
 * "Number board"). On phones it is pinned to the bottom of the screen and can collapse to one line
 * (the button with aria-expanded), leaving more of the board in view.
 */
export function SelectionPanel({ panelRef, ...p }: SelectionPanelProps) {
  const [collapsed, setCollapsed] = useState(false);
  const bodyId = useId();
  return (
    <section ref={panelRef} className={`numbers-panel${collapsed ? ' is-collapsed' : ''}`} aria-label="Sua seleção">
      <div className="numbers-panel-info">
        <p className="numbers-count" aria-live="polite">
          Selecionados: <strong>{p.selected.length}</strong>
          <span className="muted"> · até {p.maxSelection} por vez</span>
        </p>
        <button
          type="button"
          className="numbers-panel-toggle"
          aria-expanded={!collapsed}
          aria-controls={bodyId}
          onClick={() => setCollapsed((c) => !c)}
        >
          {collapsed ? <UpOutlined aria-hidden /> : <DownOutlined aria-hidden />}
          <span>{collapsed ? 'Mostrar seleção' : 'Recolher'}</span>
        </button>
      </div>

      <div id={bodyId} className="numbers-panel-body">
        {p.signedIn ? (
          p.allowanceLoading ? (
            <SkeletonBlock className="skeleton-line numbers-allowance-skeleton" style={{ width: 220 }} />
          ) : p.remaining !== null ? (
            <p className="numbers-allowance" aria-live="polite">
              Você pode escolher {p.remaining} {p.remaining === 1 ? 'número' : 'números'} agora
            </p>
          ) : null
        ) : (
          <p className="numbers-allowance">Escolha seus números e entre na sua conta para confirmar.</p>
        )}

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
          <PlainButton icon={<ClearOutlined />} onClick={p.onClear} disabled={!p.selected.length || p.checking}>
            LIMPAR SELEÇÃO
          </PlainButton>
          <PlainButton type="primary" icon={<CheckOutlined />} onClick={p.onConfirm} disabled={p.confirmDisabled} loading={p.checking}>
            CONFIRMAR
          </PlainButton>
        </div>
      </div>
    </section>
  );
}
