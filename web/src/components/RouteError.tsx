import { Button, Result } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useRouteError } from 'react-router-dom';
import { Logo } from '../layout/Logo';

/** A page that failed to load its code (new deploy, dropped connection) or crashed while rendering. */
function isChunkLoadError(err: unknown): boolean {
  const msg = err instanceof Error ? `${err.name} ${err.message}` : String(err ?? '');
  return /dynamically imported module|Importing a module script failed|ChunkLoadError|Failed to fetch/i.test(msg);
}

export function RouteError() {
  const error = useRouteError();
  if (error && !isChunkLoadError(error)) console.error(error);
  const chunk = isChunkLoadError(error);
  return (
    <div className="app">
      <header className="topbar">
        <div className="topbar-inner">
          <Logo to="/" />
        </div>
      </header>
      <main className="app-main">
        <div className="page page-narrow">
          <Result
            status={chunk ? 'warning' : 'error'}
            title={
              <h1 className="result-title">
                {chunk ? 'Não foi possível carregar esta página.' : 'Algo deu errado ao mostrar esta página.'}
              </h1>
            }
            subTitle={
              chunk
                ? 'A conexão falhou ou o site acabou de ser atualizado. Recarregue a página para continuar.'
                : 'Recarregue a página. Se o problema continuar, fale com o nosso atendimento.'
            }
            extra={
              <div className="result-actions">
                <Button type="primary" icon={<ReloadOutlined />} onClick={() => window.location.reload()}>
                  Recarregar
                </Button>
                <Button href="/">Voltar ao início</Button>
              </div>
            }
          />
        </div>
      </main>
    </div>
  );
}
