import { useEffect, useState } from 'react';
import { Alert, App, Form, Modal } from 'antd';
import { isValidEmail } from '../../../../src/shared/validation';
import { ApiError } from '../../api/client';
import { EMAIL_RULES, EmailInput } from './emailField';
import { useForgotPassword } from './useForgotPassword';

/** 'Esqueci minha senha' (account spec §2 Login, §5, §8). */
export function ForgotPasswordDialog({ open, initialEmail, onClose }: { open: boolean; initialEmail?: string; onClose: () => void }) {
  const [form] = Form.useForm<{ email: string }>();
  const { modal } = App.useApp();
  const { request, sending } = useForgotPassword();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      setError(null);
      form.setFieldsValue({ email: initialEmail && isValidEmail(initialEmail) ? initialEmail.trim() : '' });
    }
  }, [open, initialEmail, form]);

  const submit = async () => {
    let email: string;
    try {
      ({ email } = await form.validateFields());
    } catch {
      return; // the field shows its message
    }
    const clean = email.trim().toLowerCase();
    setError(null);
    try {
      await request(clean);
      onClose();
      modal.success({
        title: `Solicitação registrada para ${clean}`,
        content:
          'Se este e-mail estiver cadastrado, você receberá em instantes um link para criar uma nova senha. O link vale por tempo limitado e só pode ser usado uma vez. Confira também a caixa de spam.',
        okText: 'Entendi',
      });
    } catch (err) {
      setError(
        err instanceof ApiError && err.code === 'rate_limited' && err.fromServer
          ? err.message
          : 'Não foi possível solicitar a redefinição de senha agora.',
      );
    }
  };

  return (
    <Modal
      open={open}
      title="Esqueci minha senha"
      okText="Enviar link"
      cancelText="Cancelar"
      onOk={submit}
      onCancel={onClose}
      confirmLoading={sending}
      destroyOnHidden
    >
      <p className="muted">Informe o e-mail da sua conta. Enviaremos um link para você criar uma nova senha.</p>
      {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} />}
      <Form form={form} layout="vertical" name="forgot" onFinish={submit} requiredMark={false} noValidate>
        <Form.Item name="email" label="E-mail" rules={EMAIL_RULES}>
          {/* eslint-disable-next-line jsx-a11y/no-autofocus -- the person just opened this dialog to type the e-mail */}
          <EmailInput autoFocus />
        </Form.Item>
      </Form>
    </Modal>
  );
}
