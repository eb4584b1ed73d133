import { useAuth } from '../../auth/AuthContext';
import { ProfileError } from '../../components/ProfileError';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { firstName, formatDate } from './format';
import { RegistrationData } from './RegistrationData';

/** Customer area (/conta): header and registration data. */
export default function AccountPage() {
  useDocumentTitle('Área do cliente');
  const { user } = useAuth();
  if (!user) return <ProfileError />;
  const since = formatDate(user.created_at);
  return (
    <div className="page page-account">
      <header className="account-header">
        <p className="account-kicker">Área do cliente</p>
        <h1>Olá{firstName(user.name) ? `, ${firstName(user.name)}` : ''}!</h1>
        {since && <p className="muted">Cliente desde {since}</p>}
      </header>
      <RegistrationData user={user} />
    </div>
  );
}
