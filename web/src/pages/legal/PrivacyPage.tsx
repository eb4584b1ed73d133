import dayjs from 'dayjs';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { LegalPageHeader } from './LegalPageHeader';
import { longDate } from './LegalSection';
import { PrivacyContent } from './PrivacyContent';

export default function PrivacyPage() {
  useDocumentTitle('Política de Privacidade');
  return (
    <article className="page page-legal">
      <LegalPageHeader title="Política de Privacidade" subtitle={`Última atualização: ${longDate(dayjs())}`} />
      <PrivacyContent />
    </article>
  );
}
