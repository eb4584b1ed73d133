import { useEffect } from 'react';
import { Alert, Button, Form } from 'antd';
import { ArrowLeftOutlined, LoginOutlined } from '@ant-design/icons';
import { ApiError, errorMessage } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { mfaApi } from '../../mfa/mfaApi';
import { OneTimeCodeInput } from '../../mfa/OneTimeCodeInput';
import { useCodeEntry } from '../../mfa/useCodeEntry';
import '../../mfa/mfa.css';

const FAILED = 'Não foi possível verificar o código agora.';

/**
 * Second step of the sign-in of an account with two-factor sign-in on: the 6-digit code of the
 * authenticator app, or one of the recovery codes ('Usar um código de recuperação'). A wrong code
 * is said on the field; an expired step or too many tries send the person back to the password
 * (`onRestart` with the server's message). The code box takes the focus when the step opens and
 * when the kind of code changes.
 */
export function MfaStep({
  mfaToken,
  remember,
  onRestart,
}: {
  mfaToken: string;
  remember: boolean;
  /** Back to the password step; `message` says why (expired, too many tries), undefined for 'Voltar'. */
  onRestart: (message?: string) => void;
}) {
  const { completeLogin } = useAuth();
  const { form, input, recovery, sending: submitting, error, clearErrors, switchKind, focus, sendCode, itemProps } = useCodeEntry();

  useEffect(() => {
    input.current?.focus();
  }, [recovery, input]);

  const onFinish = ({ code }: { code: string }) =>
    sendCode(
      code,
      async (c) => {
        const body = await mfaApi.verifyLogin(mfaToken, c);
        // The page leaves for the destination once the session is open (LoginPage's <Navigate>).
        await completeLogin(body, remember);
      },
      {
        failed: FAILED,
        onOtherError: (err) => {
          if (!(err instanceof ApiError && err.status === 401)) return false;
          // The step expired or took too many tries: a new password step starts over.
          onRestart(errorMessage(err, 'A verificação expirou. Entre de novo com a sua senha.'));
          return true;
        },
      },
    );

  return (
    <>
      <h1 className="auth-title">Verificação em duas etapas</h1>
      <p className="auth-subtitle">
        {recovery
          ? 'Digite um dos códigos de recuperação que você guardou ao ativar a verificação. Cada código vale uma única vez.'
          : 'Abra o aplicativo autenticador no seu celular e digite o código de 6 dígitos que ele mostra para a Cota Verde.'}
      </p>

      {error && <Alert type="error" showIcon title={error} className="auth-alert" role="alert" />}

      <Form
        form={form}
        name="login-mfa"
        layout="vertical"
        requiredMark={false}
        noValidate
        onFinish={onFinish}
        onValuesChange={clearErrors}
        onFinishFailed={focus}
        disabled={submitting}
      >
        <Form.Item key={recovery ? 'recovery' : 'totp'} label={recovery ? 'Código de recuperação' : 'Código de 6 dígitos'} {...itemProps}>
          <OneTimeCodeInput ref={input} recovery={recovery} size="large" />
        </Form.Item>
        <Button type="primary" htmlType="submit" size="large" block icon={<LoginOutlined aria-hidden />} loading={submitting}>
          Entrar
        </Button>
      </Form>

      <div className="mfa-login-links">
        <Button type="link" className="link-button" onClick={switchKind} disabled={submitting}>
          {recovery ? 'Usar o código do aplicativo' : 'Usar um código de recuperação'}
        </Button>
        <Button
          type="link"
          className="link-button"
          icon={<ArrowLeftOutlined aria-hidden />}
          onClick={() => onRestart()}
          disabled={submitting}
        >
          Voltar
        </Button>
      </div>
    </>
  );
}
