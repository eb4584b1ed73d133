import { useMemo, useState } from 'react';
import { Alert, App, Button, Checkbox, Form, Input } from 'antd';
import { CalendarOutlined, IdcardOutlined, LockOutlined, PhoneOutlined, UserAddOutlined, UserOutlined } from '@ant-design/icons';
import { Link, useNavigate } from 'react-router-dom';
import {
  MESSAGES,
  maskCpf,
  maskPhone,
  MIN_AGE,
  onlyDigits,
  validateRegistration,
  type RegisterInput,
} from '../../../../src/shared/validation';
import { ApiError, errorMessage } from '../../api/client';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { PrivacyContent } from '../legal/PrivacyContent';
import { EmailInput } from '../login/emailField';
import { TermsContent } from '../legal/TermsContent';
import { birthdateToIso, maskBirthdate } from './birthdate';
import { LegalDialog } from './LegalDialog';
import { useRegister } from './useRegister';

type Field = keyof RegisterInput;
const FIELDS: Field[] = ['name', 'email', 'phone', 'cpf', 'birthdate', 'password', 'acceptTerms'];

interface FormValues {
  name: string;
  email: string;
  phone: string;
  cpf: string;
  /** DD/MM/AAAA as typed. */
  birthdate: string;
  password: string;
  acceptTerms: boolean;
}

const EMPTY: FormValues = { name: '', email: '', phone: '', cpf: '', birthdate: '', password: '', acceptTerms: false };

/**
 * Form values → the register payload (account spec §3): email lowercased, phone and CPF as
 * digits, birth date as YYYY-MM-DD (what is typed, when it is not a date yet, fails validation).
 */
function toInput(v: FormValues): RegisterInput {
  return {
    name: (v.name ?? '').trim(),
    email: (v.email ?? '').trim().toLowerCase(),
    phone: onlyDigits(v.phone ?? ''),
    cpf: onlyDigits(v.cpf ?? ''),
    birthdate: birthdateToIso(v.birthdate ?? '') ?? (v.birthdate ?? '').trim(),
    password: v.password ?? '',
    acceptTerms: v.acceptTerms === true,
  };
}

/** "body.email", "email", "/cpf" → the form field, if it is one. */
function fieldOf(path: string): Field | null {
  const last =
    path
      .split(/[./[\]]+/)
      .filter(Boolean)
      .pop() ?? '';
  return (FIELDS as string[]).includes(last) ? (last as Field) : null;
}

/** Sign-up (account spec §2 Register, §5, §8). */
export default function RegisterPage() {
  useDocumentTitle('Criar conta');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [form] = Form.useForm<FormValues>();
  const { register, submitting } = useRegister();
  const [values, setValues] = useState<FormValues>(EMPTY);
  const [touched, setTouched] = useState<Partial<Record<Field, boolean>>>({});
  const [serverErrors, setServerErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<'terms' | 'privacy' | null>(null);

  const input = useMemo(() => toInput(values), [values]);
  const errors = useMemo(() => {
    const e = validateRegistration(input);
    // Something typed that is not a whole date yet (or no such day): say how to write it.
    const typed = values.birthdate ?? '';
    if (typed.trim() && !birthdateToIso(typed)) e.birthdate = MESSAGES.birthdateInvalid;
    return e;
  }, [input, values.birthdate]);
  const valid = Object.keys(errors).length === 0;

  const touch = (f: Field) => setTouched((t) => (t[f] ? t : { ...t, [f]: true }));
  const shownError = (f: Field) => serverErrors[f] ?? (touched[f] ? errors[f] : undefined);
  const itemProps = (f: Field) => {
    const e = shownError(f);
    return { validateStatus: e ? ('error' as const) : undefined, help: e };
  };

  const onValuesChange = (changed: Partial<FormValues>, all: FormValues) => {
    setValues({ ...EMPTY, ...all });
    const changedFields = Object.keys(changed) as Field[];
    if (changedFields.some((f) => serverErrors[f])) {
      setServerErrors((s) => {
        const next = { ...s };
        for (const f of changedFields) delete next[f];
        return next;
      });
    }
    // The checkbox counts as touched at once; text fields when the person leaves them, or (the
    // birth date) once all of it is typed.
    if ((changed.birthdate ?? '').length === 10) touch('birthdate');
    if ('acceptTerms' in changed) touch('acceptTerms');
    if (formError) setFormError(null);
  };

  const acceptFromDialog = () => {
    form.setFieldValue('acceptTerms', true);
    setValues((v) => ({ ...v, acceptTerms: true }));
    touch('acceptTerms');
    setDialog(null);
  };

  const onSubmit = async () => {
    setTouched(Object.fromEntries(FIELDS.map((f) => [f, true])));
    if (!valid || submitting) return;
    setFormError(null);
    try {
      await register(input);
      message.success('Conta criada com sucesso! Agora faça login.');
      navigate('/login', { state: { email: input.email } });
    } catch (err) {
      const fieldErrors: Partial<Record<Field, string>> = {};
      if (err instanceof ApiError) {
        for (const d of err.details) {
          const f = fieldOf(d.path);
          if (f && !fieldErrors[f]) fieldErrors[f] = d.message;
        }
        // A taken e-mail or CPF is one 409 account_exists (the server never says which): its
        // message, shown in the alert below, points to sign-in and password reset.
      }
      setServerErrors(fieldErrors);
      setFormError(errorMessage(err, 'Falha ao criar conta'));
    }
  };

  return (
    <div className="page page-auth">
      <div className="auth-card auth-card-wide">
        <h1 className="auth-title">Criar conta</h1>
        <p className="auth-subtitle">Cadastre-se para comprar e-books e escolher seus números. É necessário ter {MIN_AGE} anos ou mais.</p>

        {formError && <Alert type="error" showIcon title={formError} className="auth-alert" role="alert" />}

        <Form<FormValues>
          form={form}
          name="register"
          layout="vertical"
          requiredMark={false}
          noValidate
          initialValues={EMPTY}
          onValuesChange={onValuesChange}
          onFinish={onSubmit}
          disabled={submitting}
        >
          <Form.Item name="name" label="Nome completo" {...itemProps('name')}>
            <Input prefix={<UserOutlined />} autoComplete="name" onBlur={() => touch('name')} maxLength={120} />
          </Form.Item>

          <Form.Item name="email" label="E-mail" {...itemProps('email')}>
            <EmailInput placeholder="voce@exemplo.com" onBlur={() => touch('email')} />
          </Form.Item>

          <div className="form-pair">
            <Form.Item name="phone" label="Celular com DDD" normalize={(v: string) => maskPhone(v ?? '')} {...itemProps('phone')}>
              <Input
                prefix={<PhoneOutlined />}
                inputMode="tel"
                autoComplete="tel-national"
                placeholder="(00) 00000-0000"
                onBlur={() => touch('phone')}
              />
            </Form.Item>

            <Form.Item name="cpf" label="CPF" normalize={(v: string) => maskCpf(v ?? '')} {...itemProps('cpf')}>
              <Input prefix={<IdcardOutlined />} inputMode="numeric" placeholder="000.000.000-00" onBlur={() => touch('cpf')} />
            </Form.Item>
          </div>

          <div className="form-pair">
            <Form.Item
              name="birthdate"
              label="Data de nascimento"
              normalize={(v: string) => maskBirthdate(v ?? '')}
              {...itemProps('birthdate')}
            >
              <Input
                prefix={<CalendarOutlined />}
                inputMode="numeric"
                autoComplete="bday"
                placeholder="DD/MM/AAAA"
                maxLength={10}
                onBlur={() => touch('birthdate')}
              />
            </Form.Item>

            <Form.Item
              name="password"
              label="Senha"
              {...itemProps('password')}
              extra={shownError('password') ? undefined : 'Mínimo de 6 caracteres.'}
            >
              <Input.Password prefix={<LockOutlined />} autoComplete="new-password" onBlur={() => touch('password')} />
            </Form.Item>
          </div>

          <Form.Item name="acceptTerms" valuePropName="checked" {...itemProps('acceptTerms')}>
            <Checkbox>
              Li e aceito os{' '}
              <a
                href="/termos"
                onClick={(e) => {
                  e.preventDefault();
                  setDialog('terms');
                }}
              >
                Termos de Uso
              </a>{' '}
              e a{' '}
              <a
                href="/privacidade"
                onClick={(e) => {
                  e.preventDefault();
                  setDialog('privacy');
                }}
              >
                Política de Privacidade
              </a>
              .
            </Checkbox>
          </Form.Item>

          <Button type="primary" htmlType="submit" size="large" block icon={<UserAddOutlined />} loading={submitting} disabled={!valid}>
            Criar conta
          </Button>
          {!valid && <p className="form-hint">Preencha todos os campos corretamente para continuar.</p>}
        </Form>

        <p className="auth-switch">
          Já tem conta? <Link to="/login">Entrar</Link>
        </p>
      </div>

      <LegalDialog title="Termos de Uso" open={dialog === 'terms'} onAccept={acceptFromDialog} onClose={() => setDialog(null)}>
        <TermsContent inDialog />
      </LegalDialog>
      <LegalDialog title="Política de Privacidade" open={dialog === 'privacy'} onAccept={acceptFromDialog} onClose={() => setDialog(null)}>
        <PrivacyContent />
      </LegalDialog>
    </div>
  );
}
