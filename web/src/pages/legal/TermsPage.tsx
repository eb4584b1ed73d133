import { useDocumentTitle } from '../../components/useDocumentTitle';
import { LegalPageHeader } from './LegalPageHeader';
import { TermsContent } from './TermsContent';

export default function TermsPage() {
  useDocumentTitle('Termos de Uso');
  return (
    <article className="page page-legal">
      <LegalPageHeader title="Termos de Uso" />
      <TermsContent />
    </article>
  );
}
