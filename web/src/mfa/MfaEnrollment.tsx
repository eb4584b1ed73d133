import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Form, Skeleton } from 'antd';
import { CopyOutlined, ReloadOutlined, SafetyOutlined } from '@ant-design/icons';
import { ApiError, errorMessage } from '../api/client';
import { copyText } from '../components/copyText';
import { groupedSecret } from './format';
import { mfaApi } from './mfaApi';
import { OneTimeCodeInput } from './OneTimeCodeInput';
import { RecoveryCodes } from './RecoveryCodes';
import { useCodeEntry } from './useCodeEntry';
import './mfa.css';

const SETUP_FAILED = 'Não foi possível preparar a verificação em duas etapas agora.';
const ENABLE_FAILED = 'Não foi possível ativar a verificação em duas etapas agora.';

/**
 * Turning two-factor sign-in on (the console's enrolment screen and the 'Segurança' dialog of
 * /conta): asks the server for a new secret (POST /auth/mfa/setup), shows its QR code and the
 * secret in text with a copy button, takes the first 6-digit code of the app ('Ativar', POST
 * /auth/mfa/enable), then shows the recovery codes to save. `onFinished` runs once the person ticked
 * 'Guardei os códigos' and continued (or when the server says it was already on).
 */
export function MfaEnrollment({
  account,
  onFinished,
  onCancel,
  onCodesShown,
  doneLabel,
}: {
  /** The account's e-mail, written in the recovery codes file. */
  account?: string;
  onFinished: () => void;
  onCancel?: () => void;
  /** Two-factor sign-in is on and the recovery codes are on screen (a dialog then stops closing by itself). */
  onCodesShown?: () => void;
  doneLabel?: string;
}) {
  const [codes, setCodes] = useState<string[] | null>(null);
  // A new secret each time the screen opens (gcTime 0: nothing is kept after it closes); a POST
  // started twice by StrictMode's double mount is shared, not sent twice.
  const setup = useQuery({
    queryKey: ['mfa-setup'],
    queryFn: mfaApi.setup,
    gcTime: 0,
    staleTime: Infinity,
    retry: false,
  });

  if (codes) return <RecoveryCodes codes={codes} account={account} onDone={onFinished} doneLabel={doneLabel} />;

  if (setup.isPending) {
    return (
      <div role="status" aria-label="Preparando a verificação em duas etapas">
        <Skeleton active paragraph={{ rows: 5 }} />
      </div>
    );
  }
  if (setup.error) {
    const already = setup.error instanceof ApiError && setup.error.code === 'mfa_already_enabled';
    return already ? (
      <Alert
        type="info"
        showIcon
        role="status"
        title="A verificação em duas etapas já está ativada nesta conta."
        action={
          <Button size="small" onClick={onFinished}>
            {doneLabel ?? 'Continuar'}
          </Button>
        }
      />
    ) : (
      <Alert
        type="error"
        showIcon
        role="alert"
        title={errorMessage(setup.error, SETUP_FAILED)}
        action={
          <Button size="small" icon={<ReloadOutlined aria-hidden />} onClick={() => void setup.refetch()}>
            Tentar de novo
          </Button>
        }
      />
    );
  }
  return (
    <SetupStep
      secret={setup.data.secret}
      qr={setup.data.qr_code_data_url}
      onEnabled={(c) => {
        setCodes(c);
        onCodesShown?.();
      }}
      onCancel={onCancel}
    />
  );
}

function SetupStep({
  secret,
  qr,
  onEnabled,
  onCancel,
}: {
  secret: string;
  qr: string;
  onEnabled: (codes: string[]) => void;
  onCancel?: () => void;
}) {
  const { message } = App.useApp();
  // Only the app's code here: the recovery codes come with this step's success.
  const { form, input, sending, error, clearErrors, focus, sendCode, itemProps } = useCodeEntry();

  const onCopy = async () => {
    if (await copyText(secret.replace(/\s+/g, ''))) message.success('Chave copiada.');
    else message.error('Não foi possível copiar. Selecione a chave e copie manualmente.');
  };

  const submit = ({ code }: { code: string }) =>
    sendCode(
      code,
      async (c) => {
        const { recovery_codes } = await mfaApi.enable(c);
        onEnabled(recovery_codes);
      },
      { failed: ENABLE_FAILED },
    );

  return (
    <div className="mfa-setup">
      <ol className="mfa-steps">
        <li>Instale um aplicativo autenticador no celular, como Google Authenticator, Microsoft Authenticator ou Authy.</li>
        <li>
          No aplicativo, adicione uma conta e leia o QR code:
          <img
            className="mfa-qr"
            src={qr}
            width={192}
            height={192}
            alt="QR code para adicionar a conta da Cota Verde ao aplicativo autenticador"
          />
          <span className="mfa-secret-label">Não consegue ler o QR code? Digite esta chave no aplicativo:</span>
          <span className="mfa-secret-row">
            <code className="mfa-secret">{groupedSecret(secret)}</code>
            <Button size="small" icon={<CopyOutlined aria-hidden />} onClick={() => void onCopy()} aria-label="Copiar chave">
              Copiar
            </Button>
          </span>
        </li>
        <li>Digite o código de 6 dígitos que o aplicativo mostra e toque em “Ativar”.</li>
      </ol>

      {error && <Alert type="error" showIcon role="alert" title={error} className="mfa-alert" />}

      <Form
        form={form}
        name="mfa-enable"
        layout="vertical"
        requiredMark={false}
        noValidate
        onFinish={submit}
        onFinishFailed={focus}
        onValuesChange={clearErrors}
        disabled={sending}
      >
        <Form.Item label="Código do aplicativo" {...itemProps}>
          <OneTimeCodeInput ref={input} size="large" />
        </Form.Item>
        <div className="mfa-actions">
          {onCancel && (
            <Button onClick={onCancel} disabled={false}>
              Cancelar
            </Button>
          )}
          <Button type="primary" htmlType="submit" size="large" icon={<SafetyOutlined aria-hidden />} loading={sending}>
            Ativar
          </Button>
        </div>
      </Form>
    </div>
  );
}
