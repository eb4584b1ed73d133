import { NotFoundResult } from '../../components/NotFoundResult';
import { useDocumentTitle } from '../../components/useDocumentTitle';

export default function NotFoundPage() {
  useDocumentTitle('Página não encontrada');
  return (
    <NotFoundResult
      title="Página não encontrada"
      subTitle="O endereço que você abriu não existe ou mudou de lugar."
      to="/"
      action="Voltar ao início"
    />
  );
}
