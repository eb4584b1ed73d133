import { useCallback, useEffect, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Checkbox, Input, InputNumber, Modal, Skeleton, Space, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { ApiError, errorMessage } from '../../../api/client';
import type { AdminUser, BoardNumber } from '../../../api/types';
import { NumberGrid, NumberLegend, pad2 } from '../../../components/board/NumberGrid';
import { parseNumbers, usersApi } from './usersApi';
import { adminKeys } from '../shared/queries';
import { DRAW_STATUS_WORD } from '../../../statusLabels';

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
  const [error, setError] = useState<string | null>(null);
  // The draw whose board is shown (set when the board is asked for, not while its id is typed).
  const [boardFor, setBoardFor] = useState<number | null>(null);
  const boardQ = useQuery({
    queryKey: adminKeys.board(boardFor ?? 0),
    queryFn: ({ signal }) => usersApi.board(boardFor!, signal),
    enabled: boardFor !== null && user !== null,
  });
  const board = boardQ.isError ? null : (boardQ.data ?? null);
  const boardLoading = boardQ.isFetching;
  const boardError =
    boardQ.error && !boardQ.isFetching ? errorMessage(boardQ.error, 'Não foi possível carregar a grade do sorteio.') : null;
  const { refetch: refetchBoard } = boardQ;

  const loadBoard = useCallback(
    async (id: number | null) => {
      if (!id) return;
      if (id === boardFor) await refetchBoard();
      else setBoardFor(id);
    },
    [boardFor, refetchBoard],
  );
  const assignNumbers = useMutation({
    mutationFn: (a: { userId: number; drawId: number; numbers: number[]; override: boolean }) =>
      usersApi.assign(a.userId, { draw_id: a.drawId, numbers: a.numbers, override_max_per_user: a.override }),
  });
  const busy = assignNumbers.isPending;

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
    // The same draw as last time loads again as the dialog opens (its query is enabled again).
    else if (drawId !== boardFor) setBoardFor(drawId);
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
    try {
      const r = await assignNumbers.mutateAsync({ userId: user.id, drawId, numbers, override });
      message.success(r.sold_out ? `${r.message} O sorteio esgotou e foi fechado.` : r.message);
      setText('');
      await loadBoard(drawId);
    } catch (e) {
      const conflicts = e instanceof ApiError ? (e.body as { conflicts?: number[] } | undefined)?.conflicts : undefined;
      setError(
        errorMessage(e, conflicts?.length ? `Falha ao atribuir números: ${conflicts.map(pad2).join(', ')}.` : 'Falha ao atribuir números.'),
      );
      await loadBoard(drawId);
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
          Cliente:{' '}
          <strong>
            #{user.id} {user.name}
          </strong>{' '}
          ({user.email})
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
      <Input
        id="assign-numbers"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="Ex.: 07, 15 42"
        inputMode="numeric"
        onPressEnter={assign}
      />
      <Checkbox className="assign__override" checked={override} onChange={(e) => setOverride(e.target.checked)}>
        Ignorar o limite por usuário deste sorteio
      </Checkbox>
      {error && <Alert type="error" showIcon title={error} className="assign__alert" role="alert" />}

      <div className="assign__board-head">
        <Typography.Text strong>
          {board ? `Sorteio #${String(board.draw_id).padStart(3, '0')} (${DRAW_STATUS_WORD[board.status]})` : 'Grade do sorteio'}
        </Typography.Text>
        <Button size="small" icon={<ReloadOutlined />} onClick={() => loadBoard(drawId)} disabled={!drawId}>
          Atualizar grade
        </Button>
      </div>
      <NumberLegend withSelected />
      {boardError && <Alert type="error" showIcon message={boardError} className="assign__alert" />}
      {boardLoading && !board ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : board ? (
        <NumberGrid
          numbers={cells}
          totalNumbers={board.total_numbers}
          selected={picked}
          onToggle={toggle}
          ariaLabel="Grade do sorteio para atribuir números"
        />
      ) : null}
    </Modal>
  );
}
