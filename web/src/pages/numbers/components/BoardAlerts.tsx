import { ReloadOutlined, ShoppingOutlined } from '@ant-design/icons';
import { errorMessage } from '../../../api/client';
import type { DrawStatus } from '../../../api/types';
import { PlainButton, PlainLinkButton } from '../../../components/plain/Button';
import { isSoldOut } from '../board';
import { noop, type AllowanceState, type BoardState } from '../hooks/useNumbersData';
import { Callout } from './ui';

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
        <Callout
          tone="error"
          className="numbers-alert"
          title={errorMessage(allowance.error, 'Não foi possível carregar quantos números você pode escolher.')}
        >
          <PlainButton onClick={() => allowance.refresh().catch(noop)}>Tentar novamente</PlainButton>
        </Callout>
      )}
      {signedIn && remaining === 0 && drawStatus === 'open' && (
        <Callout tone="info" className="numbers-alert" title="Você não tem números para escolher neste sorteio.">
          <p className="numbers-alert-text">Cada e-book comprado dá direito a escolher 1 número nesta tabela.</p>
          <PlainLinkButton type="primary" icon={<ShoppingOutlined />} to="/infoprodutos">
            Ver e-books
          </PlainLinkButton>
        </Callout>
      )}
      {board.board && isSoldOut(board.board) && (
        <Callout tone="warning" className="numbers-alert" title="Tabela esgotada: todos os números deste sorteio foram vendidos.">
          {soldOutError ?? undefined}
        </Callout>
      )}
      {board.board && board.error != null && (
        <Callout tone="warning" className="numbers-alert" title={errorMessage(board.error, 'Não foi possível atualizar a tabela agora.')}>
          <p className="numbers-alert-text">Os números abaixo podem estar desatualizados.</p>
          <PlainButton icon={<ReloadOutlined />} onClick={() => board.refresh().catch(noop)}>
            Atualizar
          </PlainButton>
        </Callout>
      )}
    </>
  );
}
