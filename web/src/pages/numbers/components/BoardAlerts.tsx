import { Alert, Button } from 'antd';
import { ReloadOutlined, ShoppingOutlined } from '@ant-design/icons';
import { errorMessage } from '../../../api/client';
import type { DrawStatus } from '../../../api/types';
import { LinkButton } from '../../../components/LinkButton';
import { isSoldOut } from '../board';
import { noop, type AllowanceState, type BoardState } from '../hooks/useNumbersData';

/**
 * What the visitor should know above the board: their allowance could not be loaded, they have no
 * number to pick (buy an e-book), the board sold out, or the board on screen could not be updated.
 */
export function BoardAlerts({
  signedIn,
  allowance,
  remaining,
  drawStatus,
  board,
  soldOutError,
}: {
  signedIn: boolean;
  allowance: AllowanceState;
  remaining: number | null;
  drawStatus: DrawStatus | undefined;
  board: BoardState;
  soldOutError: string | null;
}) {
  return (
    <>
      {signedIn && !allowance.loading && allowance.error != null && (
        <Alert
          type="error"
          showIcon
          className="numbers-alert"
          title={errorMessage(allowance.error, 'Não foi possível carregar quantos números você pode escolher.')}
          description={
            <Button size="small" onClick={() => allowance.refresh().catch(noop)}>
              Tentar novamente
            </Button>
          }
        />
      )}
      {signedIn && remaining === 0 && drawStatus === 'open' && (
        <Alert
          type="info"
          showIcon
          className="numbers-alert"
          title="Você não tem números para escolher neste sorteio."
          description={
            <>
              <p className="numbers-alert-text">Cada e-book comprado dá direito a escolher 1 número nesta tabela.</p>
              <LinkButton size="small" type="primary" icon={<ShoppingOutlined />} to="/infoprodutos">
                Ver e-books
              </LinkButton>
            </>
          }
        />
      )}
      {board.board && isSoldOut(board.board) && (
        <Alert
          type="warning"
          showIcon
          className="numbers-alert"
          title="Tabela esgotada: todos os números deste sorteio foram vendidos."
          description={soldOutError ?? undefined}
        />
      )}
      {board.board && board.error != null && (
        <Alert
          type="warning"
          showIcon
          className="numbers-alert"
          title={errorMessage(board.error, 'Não foi possível atualizar a tabela agora.')}
          description={
            <>
              <p className="numbers-alert-text">Os números abaixo podem estar desatualizados.</p>
              <Button size="small" icon={<ReloadOutlined />} onClick={() => board.refresh().catch(noop)}>
                Atualizar
              </Button>
            </>
          }
        />
      )}
    </>
  );
}
