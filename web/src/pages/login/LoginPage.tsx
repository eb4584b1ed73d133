import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Checkbox, Form, Input, type InputRef } from 'antd';
import { LockOutlined, LoginOutlined } from '@ant-design/icons';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { MESSAGES, MIN_PASSWORD } from '../../../../src/shared/validation';
import { ApiError, errorMessage } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { PageSkeleton } from '../../components/PageSkeleton';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { EMAIL_RULES, EmailInput } from './emailField';
import { ForgotPasswordDialog } from './ForgotPasswordDialog';
import { MfaStep } from './MfaStep';
import { destinationAfterLogin, type LoginLocationState } from './redirect';

interface LoginValues {
  email: string;
  password: string;
  remember: boolean;
}

function loginErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'profile_unavailable') return 'Não foi possível carregar seus dados.';
    if (err.code === 'missing_token') return 'Falha ao entrar.';
  }
  return errorMessage(err, 'Falha ao entrar.');
}

/** Sign-in (storefront spec §2, account spec §2 Login and §5). */
export default function LoginPage() {
  useDocumentTitle('Entrar');
  const { login, user, loading } = useAuth();
  const location = useLocation();
  const state = (location.state ?? null) as LoginLocationState | null;
  const [form] = Form.useForm<LoginValues>();
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [forgotOpen, setForgotOpen] = useState(false);
  const [forgotEmail, setForgotEmail] = useState('');
  // Set after a right password on an account with two-factor sign-in on: the code step shows.
  const [mfa, setMfa] = useState<{ token: string; remember: boolean } | null>(null);
  const passwordInput = useRef<InputRef>(null);
  // Back from the code step (or sent back by it): the password box takes the focus again.
  const [backToPassword, setBackToPassword] = useState(0);
  useEffect(() => {
    if (backToPassword) passwordInput.current?.focus({ cursor: 'all' });
  }, [backToPassword]);

  if (loading) return <PageSkeleton />;
  // Signed in (now or already): go where the sign-in was meant to lead.
  if (user) {
    const dest = destinationAfterLogin(user, state);
    return <Navigate to={dest.to} state={dest.state} replace />;
  }

  const onFinish = async ({ email, password, remember }: LoginValues) => {
    setError(null);
    setSubmitting(true);
    try {
      const outcome = await login(email.trim().toLowerCase(), password, remember);
      if (outcome.mfaToken) {
        setMfa({ token: outcome.mfaToken, remember });
        setSubmitting(false);
      }
    } catch (err) {
      setError(loginErrorText(err));
      setSubmitting(false);
    }
  };

  return (
    <div className="page page-auth">
      <div className="auth-card">
        {mfa && (
          <MfaStep
            mfaToken={mfa.token}
            remember={mfa.remember}
            onRestart={(message) => {
              setMfa(null);
              setError(message ?? null);
              setBackToPassword((n) => n + 1);
            }}
          />
        )}
        {/* Kept mounted (hidden) during the code step: 'Voltar' finds the e-mail and password as typed. */}
        <div hidden={!!mfa}>
          <h1 className="auth-title">Entrar</h1>
          <p className="auth-subtitle">Acesse sua conta para comprar e-books e escolher seus números.</p>

          {state?.message && <Alert type="info" showIcon title={state.message} className="auth-alert" />}
          {error && <Alert type="error" showIcon title={error} className="auth-alert" role="alert" />}

          <Form<LoginValues>
            form={form}
            name="login"
            layout="vertical"
            requiredMark={false}
            noValidate
            initialValues={{ email: state?.email ?? '', password: '', remember: true }}
            onFinish={onFinish}
            onValuesChange={() => error && setError(null)}
            disabled={submitting}
          >
            <Form.Item name="email" label="E-mail" rules={EMAIL_RULES}>
              <EmailInput placeholder="voce@exemplo.com" size="large" />
            </Form.Item>

            <Form.Item name="password" label="Senha" rules={[{ min: MIN_PASSWORD, required: true, message: MESSAGES.passwordTooShort }]}>
              <Input.Password ref={passwordInput} prefix={<LockOutlined />} autoComplete="current-password" size="large" />
            </Form.Item>

            <div className="auth-row">
              <Form.Item name="remember" valuePropName="checked" noStyle>
                <Checkbox>Manter-me conectado</Checkbox>
              </Form.Item>
              <Button
                type="link"
                className="link-button"
                onClick={() => {
                  setForgotEmail(form.getFieldValue('email') ?? '');
                  setForgotOpen(true);
                }}
                disabled={false}
              >
                Esqueci minha senha
              </Button>
            </div>

            <Button type="primary" htmlType="submit" size="large" block icon={<LoginOutlined />} loading={submitting}>
              Entrar
            </Button>
          </Form>

          <p className="auth-switch">
            Ainda não tem conta? <Link to="/cadastro">Criar conta</Link>
          </p>
        </div>
      </div>

      <ForgotPasswordDialog open={forgotOpen} initialEmail={forgotEmail} onClose={() => setForgotOpen(false)} />
    </div>
  );
}
