import { useState } from 'react';
import { Alert, App, Button, Card, Form, Modal, Tag } from 'antd';
import { LockOutlined, SafetyOutlined } from '@ant-design/icons';
import { useAuth } from '../../auth/AuthContext';
import type { User } from '../../auth/user';
import { MfaEnrollment } from '../../mfa/MfaEnrollment';
import { mfaApi } from '../../mfa/mfaApi';
import { OneTimeCodeInput } from '../../mfa/OneTimeCodeInput';
import { useCodeEntry } from '../../mfa/useCodeEntry';

const DISABLE_FAILED = 'Não foi possível desativar a verificação em duas etapas agora.';

/**
 * 'Segurança' of /conta: two-factor sign-in on or off. 'Ativar' opens the enrolment (QR code,
 * first code, recovery codes) in a dialog; 'Desativar' asks for a code of the app (or a recovery
 * code) first. The profile is reloaded after either, so the card shows the server's state.
 */
export function SecurityCard({ user }: { user: User }) {
  const { message } = App.useApp();
  const { refresh } = useAuth();
  const [enrolling, setEnrolling] = useState(false);
  const [disabling, setDisabling] = useState(false);
  // The recovery codes are on screen: the dialog closes only through 'Concluir'.
  const [codesShown, setCodesShown] = useState(false);
  const on = user.mfa_enabled;

  return (
    <Card
      className="account-card security-card"
      title={
        <span>
          <LockOutlined aria-hidden /> Segurança
        </span>
      }
    >
      <div className="security-row">
        <h2 className="security-title">Verificação em duas etapas</h2>
        <Tag className={on ? 'security-tag security-tag--on' : 'security-tag'}>{on ? 'Ativada' : 'Desativada'}</Tag>
      </div>
      <p className="muted security-text">
        {on
          ? 'Cada acesso à sua conta pede, além da senha, um código do aplicativo autenticador do seu celular.'
          : 'Proteja sua conta: além da senha, cada acesso passa a pedir um código do aplicativo autenticador do seu celular.'}
      </p>
      {on ? (
        <Button danger onClick={() => setDisabling(true)}>
          Desativar
        </Button>
      ) : (
        <Button type="primary" icon={<SafetyOutlined aria-hidden />} onClick={() => setEnrolling(true)}>
          Ativar
        </Button>
      )}

      <Modal
        open={enrolling}
        title="Ativar verificação em duas etapas"
        footer={null}
        // Once the codes are shown the dialog ends only through 'Concluir' (after 'Guardei os códigos').
        onCancel={() => !codesShown && setEnrolling(false)}
        closable={!codesShown}
        keyboard={!codesShown}
        maskClosable={false}
        afterClose={() => setCodesShown(false)}
        destroyOnHidden
        className="mfa-dialog"
      >
        <MfaEnrollment
          account={user.email}
          doneLabel="Concluir"
          onCancel={() => setEnrolling(false)}
          onCodesShown={() => setCodesShown(true)}
          onFinished={() => {
            setEnrolling(false);
            void refresh().then(() => message.success('Verificação em duas etapas ativada.'));
          }}
        />
      </Modal>

      <DisableDialog
        open={disabling}
        onClose={() => setDisabling(false)}
        onDisabled={() => {
          setDisabling(false);
          void refresh().then(() => message.success('Verificação em duas etapas desativada.'));
        }}
      />
    </Card>
  );
}

function DisableDialog({ open, onClose, onDisabled }: { open: boolean; onClose: () => void; onDisabled: () => void }) {
  const { form, input, recovery, sending, error, clearErrors, switchKind, reset, focus, sendCode, itemProps } = useCodeEntry();

  const submit = async () => {
    let code: string;
    try {
      ({ code } = await form.validateFields());
    } catch {
      focus(); // the field shows its message
      return;
    }
    await sendCode(
      code,
      async (c) => {
        await mfaApi.disable(c);
        onDisabled();
      },
      { failed: DISABLE_FAILED, settleOnSuccess: true },
    );
  };

  return (
    <Modal
      open={open}
      title="Desativar verificação em duas etapas"
      okText="Desativar"
      okButtonProps={{ danger: true }}
      cancelText="Cancelar"
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={sending}
      destroyOnHidden
      afterOpenChange={(visible) => visible && input.current?.focus()}
      afterClose={reset}
    >
      <p>
        Sem a verificação em duas etapas, a senha volta a ser suficiente para entrar na sua conta. Para confirmar, digite{' '}
        {recovery ? 'um dos seus códigos de recuperação.' : 'o código de 6 dígitos do aplicativo autenticador.'}
      </p>
      {error && <Alert type="error" showIcon role="alert" title={error} className="mfa-alert" />}
      <Form
        form={form}
        name="mfa-disable"
        layout="vertical"
        requiredMark={false}
        noValidate
        onFinish={() => void submit()}
        onValuesChange={clearErrors}
      >
        <Form.Item key={recovery ? 'recovery' : 'totp'} label={recovery ? 'Código de recuperação' : 'Código do aplicativo'} {...itemProps}>
          {/* eslint-disable-next-line jsx-a11y/no-autofocus -- the dialog opens to take this code: its one box takes the focus */}
          <OneTimeCodeInput ref={input} recovery={recovery} size="large" autoFocus />
        </Form.Item>
      </Form>
      <Button
        type="link"
        className="link-button"
        onClick={() => {
          switchKind();
          setTimeout(focus);
        }}
      >
        {recovery ? 'Usar o código do aplicativo' : 'Usar um código de recuperação'}
      </Button>
    </Modal>
  );
}
