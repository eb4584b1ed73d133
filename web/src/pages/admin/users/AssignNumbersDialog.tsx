import { useCallback, useEffect, useState } from 'react';
import { Alert, App, Button, Checkbox, Input, InputNumber, Modal, Skeleton, Space, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { ApiError, errorMessage } from '../../../api/client';
import type { AdminUser, BoardNumber } from '../../../api/types';
import { NumberGrid, NumberLegend, pad2 } from '../../../components/board/NumberGrid';
import { parseNumbers, usersApi, type AdminBoard } from './usersApi';

/**
 * 'Atribuir números' (account spec §2 assign-numbers section): Sorteio ID, 'Carregar sorteio
 * aberto', the numbers (typed, separated by comma, space or semicolon, or picked on the grid),
 * the legend grid Disponível/Reservado/Indisponível from the admin board with 'Atualizar grade',
 * and the override of the draw's per-user limit.
 */
export function AssignNumbersDialog({ user, onClose }: { user: AdminUser | null; onClose(): void }) {
  const { message } = App.useApp();
  const [drawId, setDrawId] = useState<number | null>(null);
  const [text, setText] = useState('');
  const [override, setOverride] = useState(false);
  const [board, setBoard] = useState<AdminBoard | null>(null);
  const [boardLoading, setBoardLoading] = useState(false);
  const [boardError, setBoardError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const loadBoard = useCallback(async (id: number | null) => {
    if (!id) return;
    setBoardLoading(true);
    setBoardError(null);
    try {
      setBoard(await usersApi.board(id));
    } catch (e) {
      setBoard(null);
      setBoardError(errorMessage(e, 'Não foi possível carregar a grade do sorteio.'));
    } finally {
      setBoardLoading(false);
    }
  }, []);

  const loadOpenDraw = useCallback(async () => {
    setError(null);
    try {
      const d = await usersApi.openDraw();
      if (!d) {
        setError('Nenhum sorteio aberto no momento.');
        return;
      }
      setDrawId(d.id);
      await loadBoard(d.id);
    } catch (e) {
      setError(errorMessage(e, 'Não foi possível carregar o sorteio aberto.'));
    }
  }, [loadBoard]);

  useEffect(() => {
    if (!user) return;
    setText('');
    setOverride(false);
    setError(null);
    if (!drawId) void loadOpenDraw();
    else void loadBoard(drawId);
    // Only when the dialog opens for a user.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [user]);

  const picked = parseNumbers(text) ?? [];
  const toggle = (n: number) => {
    const next = picked.includes(n) ? picked.filter((x) => x !== n) : [...picked, n].sort((a, b) => a - b);
    setText(next.map(pad2).join(', '));
  };

  const assign = async () => {
    setError(null);
    if (!user) {
      setError('Selecione um usuário na lista.');
      return;
    }
    const numbers = parseNumbers(text);
    if (!drawId || !Number.isInteger(drawId) || drawId < 1 || !numbers?.length) {
      setError('Informe um sorteio e pelo menos um número.');
      return;
    }
    setBusy(true);
    try {
      const r = await usersApi.assign(user.id, { draw_id: drawId, numbers, override_max_per_user: override });
      message.success(r.sold_out ? `${r.message} O sorteio esgotou e foi fechado.` : r.message);
      setText('');
      await loadBoard(drawId);
    } catch (e) {
      const conflicts = e instanceof ApiError ? (e.body as { conflicts?: number[] } | undefined)?.conflicts : undefined;
      setError(errorMessage(e, conflicts?.length ? `Falha ao atribuir números: ${conflicts.map(pad2).join(', ')}.` : 'Falha ao atribuir números.'));
      await loadBoard(drawId);
    } finally {
      setBusy(false);
    }
  };

  const cells: BoardNumber[] = (board?.numbers ?? []).map((c) => ({ n: c.n, status: c.status, initials: null }));

  return (
    <Modal
      open={user !== null}
      title="Atribuir números"
      onCancel={onClose}
      footer={[
        <Button key="close" onClick={onClose}>
          Fechar
        </Button>,
        <Button key="assign" type="primary" loading={busy} onClick={assign}>
          Atribuir
        </Button>,
      ]}
      width={640}
    >
      {user && (
        <p>
          Cliente: <strong>#{user.id} {user.name}</strong> ({user.email})
        </p>
      )}
      <Space wrap className="assign__row">
        <label htmlFor="assign-draw">Sorteio ID</label>
        <InputNumber
          id="assign-draw"
          min={1}
          precision={0}
          value={drawId}
          onChange={(v) => setDrawId(typeof v === 'number' ? v : null)}
          onBlur={() => loadBoard(drawId)}
          style={{ width: 120 }}
        />
        <Button onClick={loadOpenDraw}>Carregar sorteio aberto</Button>
      </Space>
      <label htmlFor="assign-numbers" className="assign__label">
        Números (separados por vírgula ou espaço)
      </label>
      <Input id="assign-numbers" value={text} onChange={(e) => setText(e.target.value)} placeholder="Ex.: 07, 15 42" inputMode="numeric" onPressEnter={assign} />
      <Checkbox className="assign__override" checked={override} onChange={(e) => setOverride(e.target.checked)}>
        Ignorar o limite por usuário deste sorteio
      </Checkbox>
      {error && <Alert type="error" showIcon title={error} className="assign__alert" role="alert" />}

      <div className="assign__board-head">
        <Typography.Text strong>{board ? `Sorteio #${String(board.draw_id).padStart(3, '0')} (${board.status === 'open' ? 'aberto' : board.status === 'closed' ? 'fechado' : 'realizado'})` : 'Grade do sorteio'}</Typography.Text>
        <Button size="small" icon={<ReloadOutlined />} onClick={() => loadBoard(drawId)} disabled={!drawId}>
          Atualizar grade
        </Button>
      </div>
      <NumberLegend withSelected />
      {boardError && <Alert type="error" showIcon message={boardError} className="assign__alert" />}
      {boardLoading && !board ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : board ? (
        <NumberGrid numbers={cells} totalNumbers={board.total_numbers} selected={picked} onToggle={toggle} ariaLabel="Grade do sorteio para atribuir números" />
      ) : null}
    </Modal>
  );
}
