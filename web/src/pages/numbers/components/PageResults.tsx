import { Button, Result } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import type { Draw } from '../../../api/types';
import { LinkButton } from '../../../components/LinkButton';
import { ClosedDraws } from './ClosedDraws';

/** The board could not be loaded: the reason and 'Tentar novamente'. */
export function LoadError({ text, onRetry }: { text: string; onRetry(): void }) {
  return (
    <div className="page page-narrow">
      <Result
        status="warning"
        title={<h1 className="result-title">Não foi possível carregar a tabela</h1>}
        subTitle={text}
        extra={
          <div className="result-actions">
            <Button type="primary" icon={<ReloadOutlined />} onClick={onRetry}>
              Tentar novamente
            </Button>
            <LinkButton to="/">Voltar ao início</LinkButton>
          </div>
        }
      />
    </div>
  );
}

/** No draw open anywhere: says so, with the closed draws waiting for their result. */
export function NoOpenDraw({ closed }: { closed: { items: Draw[]; loading: boolean } }) {
  return (
    <div className="page numbers-page">
      <Result
        status="info"
        title={<h1 className="result-title">Nenhum sorteio aberto no momento</h1>}
        subTitle="Todas as tabelas estão fechadas. Assim que uma nova rodada abrir, você poderá escolher seus números aqui."
        extra={
          <LinkButton type="primary" to="/">
            Voltar ao início
          </LinkButton>
        }
      />
      <ClosedDraws items={closed.items} loading={closed.loading} />
    </div>
  );
}

/** The draw asked for does not exist: 'Ver o sorteio aberto' (`onShowOpen`) or home. */
export function DrawNotFound({ drawId, onShowOpen }: { drawId: number | null; onShowOpen(): void }) {
  return (
    <div className="page page-narrow">
      <Result
        status="404"
        title={<h1 className="result-title">Sorteio não encontrado</h1>}
        subTitle={`O sorteio #${drawId} não existe ou foi removido.`}
        extra={
          <div className="result-actions">
            <Button type="primary" onClick={onShowOpen}>
              Ver o sorteio aberto
            </Button>
            <LinkButton to="/">Voltar ao início</LinkButton>
          </div>
        }
      />
    </div>
  );
}
