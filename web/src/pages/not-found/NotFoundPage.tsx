import { Result } from 'antd';
import { LinkButton } from '../../components/LinkButton';
import { useDocumentTitle } from '../../components/useDocumentTitle';

export default function NotFoundPage() {
  useDocumentTitle('Página não encontrada');
  return (
    <div className="page page-narrow">
      <Result
        status="404"
        title={<h1 className="result-title">Página não encontrada</h1>}
        subTitle="O endereço que você abriu não existe ou mudou de lugar."
        extra={
          <LinkButton type="primary" to="/">
            Voltar ao início
          </LinkButton>
        }
      />
    </div>
  );
}
