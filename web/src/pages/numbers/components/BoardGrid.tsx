import { ReloadOutlined } from '@ant-design/icons';
import { errorMessage } from '../../../api/client';
import { BoardSkeleton } from '../../../components/board/BoardSkeleton';
import { NumberGrid } from '../../../components/board/NumberGrid';
import { PlainButton } from '../../../components/plain/Button';
import { Callout } from './ui';
import { noop, type BoardState } from '../hooks/useNumbersData';

/** The board's grid; before the first board, its failure with 'Tentar novamente' or a skeleton. */
export function BoardGrid({
  board,
  total,
  selected,
  mine,
  onToggle,
  onlyFree = false,
}: {
  board: BoardState;
  total: number;
  selected: number[];
  mine: number[];
  onToggle(n: number): void;
  /** 'Só livres': only the numbers that can be picked (and the ones picked). */
  onlyFree?: boolean;
}) {
  if (board.board) {
    return (
      <NumberGrid
        numbers={board.board.numbers}
        totalNumbers={total}
        selected={selected}
        onToggle={onToggle}
        mine={mine}
        onlyAvailable={onlyFree}
        ariaLabel={`Tabela de números do sorteio #${board.board.draw_id}`}
      />
    );
  }
  if (board.error != null && !board.loading) {
    return (
      <Callout tone="error" title={errorMessage(board.error, 'Não foi possível carregar a tabela de números.')}>
        <PlainButton icon={<ReloadOutlined />} onClick={() => board.refresh().catch(noop)}>
          Tentar novamente
        </PlainButton>
      </Callout>
    );
  }
  return <BoardSkeleton />;
}
