import { useState } from 'react';
import { Alert, App, Button, Form, Input, Result } from 'antd';
import { LockOutlined, LoginOutlined } from '@ant-design/icons';
import { Link, useSearchParams } from 'react-router-dom';
import { MESSAGES, MIN_PASSWORD } from '../../../../src/shared/validation';
import { errorMessage } from '../../api/client';
import { LinkButton } from '../../components/LinkButton';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useConfirmReset } from './useConfirmReset';

interface Values {
  password: string;
  confirm: string;
}

/** /redefinir-senha?token=…: the page the reset e-mail links to. */
export default function ResetPasswordPage() {
  useDocumentTitle('Redefinir senha');
  const [params] = useSearchParams();
  const token = (params.get('token') ?? '').trim();
  const { message } = App.useApp();
  const { confirm, saving } = useConfirmReset();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  if (!token) {
    return (
      <div className="page page-auth">
        <div className="auth-card">
          <Result
            status="error"
            title={<h1 className="result-title">Link inválido ou expirado.</h1>}
            subTitle="Este endereço não tem o código de redefinição. Peça um novo link em “Esqueci minha senha”, na tela de login."
            extra={
              <LinkButton type="primary" icon={<LoginOutlined />} to="/login">
                Ir para o login
              </LinkButton>
            }
          />
        </div>
      </div>
    );
  }

  if (done) {
    return (
      <div className="page page-auth">
        <div className="auth-card">
          <Result
            status="success"
            title={<h1 className="result-title">Senha alterada com sucesso! Agora faça login.</h1>}
            extra={
              <LinkButton type="primary" icon={<LoginOutlined />} to="/login" replace>
                Ir para o login
              </LinkButton>
            }
          />
        </div>
      </div>
    );
  }

  const onFinish = async ({ password }: Values) => {
    setError(null);
    try {
      await confirm(token, password);
      message.success('Senha alterada com sucesso! Agora faça login.');
      setDone(true);
    } catch (err) {
      setError(errorMessage(err, 'Não foi possível alterar a senha agora.'));
    }
  };

  return (
    <div className="page page-auth">
      <div className="auth-card">
        <h1 className="auth-title">Redefinir senha</h1>
        <p className="auth-subtitle">Escolha uma nova senha para a sua conta.</p>
        {error && (
          <Alert
            type="error"
            showIcon
            title={error}
            className="auth-alert"
            role="alert"
            description={
              <span>
                Se o link expirou, peça um novo em “Esqueci minha senha”, na <Link to="/login">tela de login</Link>.
              </span>
            }
          />
        )}
        <Form<Values> name="reset" layout="vertical" requiredMark={false} noValidate onFinish={onFinish} disabled={saving}>
          <Form.Item
            name="password"
            label="Nova senha"
            rules={[{ required: true, min: MIN_PASSWORD, message: MESSAGES.passwordTooShort }]}
            extra="Mínimo de 6 caracteres."
          >
            <Input.Password prefix={<LockOutlined />} autoComplete="new-password" size="large" />
          </Form.Item>
          <Form.Item
            name="confirm"
            label="Confirme a nova senha"
            dependencies={['password']}
            rules={[
              { required: true, min: MIN_PASSWORD, message: MESSAGES.passwordTooShort },
              ({ getFieldValue }) => ({
                validator: (_, v: string) =>
                  !v || v === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error('As senhas não conferem.')),
              }),
            ]}
          >
            <Input.Password prefix={<LockOutlined />} autoComplete="new-password" size="large" />
          </Form.Item>
          <Button type="primary" htmlType="submit" size="large" block loading={saving}>
            Salvar nova senha
          </Button>
        </Form>
      </div>
    </div>
  );
}
