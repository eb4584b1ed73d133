import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Result, Skeleton } from 'antd';
import { CheckCircleOutlined, LoginOutlined, LogoutOutlined } from '@ant-design/icons';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { api, ApiError, errorMessage } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { LinkButton } from '../../components/LinkButton';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import type { LoginLocationState } from '../login/redirect';
import './confirm-admin-email.css';
import type { AdminEmailCheck, AdminEmailConfirmed } from '../../../../src/shared/api/auth';

const CHECK_FAILED = 'Não foi possível verificar o link agora.';
const CONFIRM_FAILED = 'Não foi possível confirmar o e-mail agora.';
const INVALID_LINK = 'Link de confirmação inválido ou expirado. Entre na sua conta para receber outro.';

/** GET /api/auth/confirm-admin-email?token=…: the link is alive (nothing changes). */
const checkLink = (token: string, signal: AbortSignal) =>
  api.get<AdminEmailCheck>('/auth/confirm-admin-email', { query: { token }, signal, auth: false });
/** POST /api/auth/confirm-admin-email {token}: signed in as the link's account, the proof is done. */
const confirmLink = (token: string) => api.post<AdminEmailConfirmed>('/auth/confirm-admin-email', { token });

/**
 * /confirmar-email-admin?token=…: the page the ADMIN_EMAILS proof mail links to (RULES U3 "A
 * listed admin address proves itself"). It checks the link, asks the person to sign in with the
 * link's address if they are not (the sign-in comes back here), warns when another account is
 * signed in, then 'Confirmar e-mail de administração' proves the address. A lazily loaded page:
 * never part of the store's first visit.
 */
export default function ConfirmAdminEmailPage() {
  useDocumentTitle('Confirmar e-mail de administração');
  const [params] = useSearchParams();
  const token = (params.get('token') ?? '').trim();
  const check = useQuery({
    queryKey: ['admin-email-check', token],
    queryFn: ({ signal }) => checkLink(token, signal),
    enabled: !!token,
    retry: false,
    staleTime: Infinity,
  });

  if (!token) return <BadLink message="Este endereço não tem o código de confirmação. Abra o link completo do e-mail que você recebeu." />;
  if (check.isPending) return <Loading />;
  if (check.error) {
    const bad = check.error instanceof ApiError && check.error.status === 400;
    return <BadLink message={bad ? errorMessage(check.error, INVALID_LINK) : errorMessage(check.error, CHECK_FAILED)} />;
  }
  return <Confirm token={token} email={check.data.email} />;
}

function Card({ children }: { children: ReactNode }) {
  return (
    <div className="page page-auth page-confirm-admin">
      <div className="auth-card">{children}</div>
    </div>
  );
}

function Loading() {
  return (
    <Card>
      <div role="status" aria-label="Verificando o link">
        <Skeleton active paragraph={{ rows: 3 }} />
      </div>
    </Card>
  );
}

function BadLink({ message }: { message: string }) {
  return (
    <Card>
      <Result
        status="error"
        title={<h1 className="result-title">Não foi possível usar este link</h1>}
        subTitle={<span role="alert">{message}</span>}
        extra={
          <LinkButton type="primary" icon={<LoginOutlined aria-hidden />} to="/login">
            Ir para o login
          </LinkButton>
        }
      />
    </Card>
  );
}

function Confirm({ token, email }: { token: string; email: string }) {
  const { user, loading, logout, refresh } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [sending, setSending] = useState(false);
  // `again`: the session is not the link's account (403 wrong_account) or has ended (401).
  const [error, setError] = useState<{ message: string; again: 'wrong_account' | 'signed_out' | null } | null>(null);
  const [done, setDone] = useState(false);
  const doneHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (done) doneHeading.current?.focus();
  }, [done]);

  /** To /login with the link's address filled in; signing in comes back to this page. */
  const signInAs = () => {
    const state: LoginLocationState = {
      from: { pathname: location.pathname, search: location.search },
      email,
      message: `Entre com a conta de ${email} para confirmar o e-mail de administração.`,
    };
    navigate('/login', { state });
  };

  const onConfirm = async () => {
    setError(null);
    setSending(true);
    try {
      await confirmLink(token);
      // The account is admin now: the profile (and the top bar's menu) say so.
      await refresh();
      setDone(true);
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 0;
      const again = status === 403 ? 'wrong_account' : status === 401 ? 'signed_out' : null;
      setError({ message: errorMessage(err, status === 400 ? INVALID_LINK : CONFIRM_FAILED), again });
    } finally {
      setSending(false);
    }
  };

  if (done) {
    return (
      <Card>
        <Result
          status="success"
          title={
            <h1 className="result-title" tabIndex={-1} ref={doneHeading}>
              E-mail de administração confirmado
            </h1>
          }
          subTitle={`A conta ${email} agora tem acesso ao painel de administração.`}
          extra={
            <LinkButton type="primary" to="/admin" replace>
              Ir para o painel
            </LinkButton>
          }
        />
      </Card>
    );
  }
  if (loading) return <Loading />;

  const same = !!user && user.email.toLowerCase() === email.toLowerCase();
  return (
    <Card>
      <h1 className="auth-title">Confirmar e-mail de administração</h1>
      <p className="auth-subtitle">
        Este link confirma que o endereço <strong className="confirm-admin-email">{email}</strong> é seu e ativa o acesso de administrador
        da conta com esse e-mail.
      </p>

      {error && (
        <Alert
          type="error"
          showIcon
          role="alert"
          className="auth-alert"
          title={error.message}
          action={
            error.again ? (
              <Button size="small" onClick={() => void logout().then(signInAs)}>
                {error.again === 'wrong_account' ? 'Sair e trocar de conta' : 'Entrar de novo'}
              </Button>
            ) : undefined
          }
        />
      )}

      {!user ? (
        <>
          <p className="confirm-admin-text">Para continuar, entre com a conta de {email}. Depois do login você volta para esta página.</p>
          <Button type="primary" size="large" block icon={<LoginOutlined aria-hidden />} onClick={signInAs}>
            Entrar para confirmar
          </Button>
        </>
      ) : !same ? (
        <>
          <Alert
            type="warning"
            showIcon
            className="auth-alert"
            title="Você entrou com outra conta"
            description={`Você está conectado como ${user.email}, mas este link é do e-mail ${email}. Saia e entre com a conta de ${email} para confirmar.`}
          />
          <Button type="primary" size="large" block icon={<LogoutOutlined aria-hidden />} onClick={() => void logout().then(signInAs)}>
            Sair e trocar de conta
          </Button>
        </>
      ) : (
        <>
          <p className="confirm-admin-text">Você está conectado como {user.email}.</p>
          <Button
            type="primary"
            size="large"
            block
            icon={<CheckCircleOutlined aria-hidden />}
            loading={sending}
            onClick={() => void onConfirm()}
          >
            Confirmar e-mail de administração
          </Button>
        </>
      )}
    </Card>
  );
}
