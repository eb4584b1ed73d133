import { Alert, Button } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { errorMessage } from '../../../api/client';
import { NumberGrid } from '../../../components/board/NumberGrid';
import { noop, type BoardState } from '../hooks/useNumbersData';

/** The board's grid; before the first board, its failure with 'Tentar novamente' or a skeleton. */
export function BoardGrid({
  board,
  total,
  selected,
  mine,
  onToggle,
}: {
  board: BoardState;
  total: number;
  selected: number[];
  mine: number[];
  onToggle(n: number): void;
}) {
  if (board.board) {
    return (
      <NumberGrid
        numbers={board.board.numbers}
        totalNumbers={total}
        selected={selected}
        onToggle={onToggle}
        mine={mine}
        ariaLabel={`Tabela de números do sorteio #${board.board.draw_id}`}
      />
    );
  }
  if (board.error != null && !board.loading) {
    return (
      <Alert
        type="error"
        showIcon
        title={errorMessage(board.error, 'Não foi possível carregar a tabela de números.')}
        description={
          <Button size="small" icon={<ReloadOutlined />} onClick={() => board.refresh().catch(noop)}>
            Tentar novamente
          </Button>
        }
      />
    );
  }
  return <BoardSkeleton />;
}

/** 100 placeholder cells in the board's shape. */
function BoardSkeleton() {
  return (
    <div className="number-grid number-grid--interactive numbers-grid-skeleton" role="status" aria-label="Carregando a tabela de números">
      {Array.from({ length: 100 }, (_, i) => (
        <span key={i} className="number-cell" />
      ))}
    </div>
  );
}
