import { ReloadOutlined } from '@ant-design/icons';
import type { Draw } from '../../../api/types';
import { PlainButton, PlainLinkButton } from '../../../components/plain/Button';
import { ClosedDraws } from './ClosedDraws';
import { ResultBlock } from './ui';

/** The board could not be loaded: the reason and 'Tentar novamente'. */
export function LoadError({ text, onRetry }: { text: string; onRetry(): void }) {
  return (
    <div className="page page-narrow">
      <ResultBlock tone="warning" title="Não foi possível carregar a tabela" text={text}>
        <PlainButton type="primary" icon={<ReloadOutlined />} onClick={onRetry}>
          Tentar novamente
        </PlainButton>
        <PlainLinkButton to="/">Voltar ao início</PlainLinkButton>
      </ResultBlock>
    </div>
  );
}

/** No draw open anywhere: says so, with the closed draws waiting for their result. */
export function NoOpenDraw({ closed }: { closed: { items: Draw[]; loading: boolean } }) {
  return (
    <div className="page numbers-page">
      <ResultBlock
        tone="info"
        title="Nenhum sorteio aberto no momento"
        text="Todas as tabelas estão fechadas. Assim que uma nova rodada abrir, você poderá escolher seus números aqui."
      >
        <PlainLinkButton type="primary" to="/">
          Voltar ao início
        </PlainLinkButton>
      </ResultBlock>
      <ClosedDraws items={closed.items} loading={closed.loading} />
    </div>
  );
}

/** The draw asked for does not exist: 'Ver o sorteio aberto' (`onShowOpen`) or home. */
export function DrawNotFound({ drawId, onShowOpen }: { drawId: number | null; onShowOpen(): void }) {
  return (
    <div className="page page-narrow">
      <ResultBlock tone="warning" title="Sorteio não encontrado" text={`O sorteio #${drawId} não existe ou foi removido.`}>
        <PlainButton type="primary" onClick={onShowOpen}>
          Ver o sorteio aberto
        </PlainButton>
        <PlainLinkButton to="/">Voltar ao início</PlainLinkButton>
      </ResultBlock>
    </div>
  );
}
