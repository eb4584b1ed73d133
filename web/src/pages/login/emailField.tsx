import { Input, type FormRule, type InputProps } from 'antd';
import { MailOutlined } from '@ant-design/icons';
import { isValidEmail, MESSAGES } from '../../../../src/shared/validation';

/** The sign-in and the reset request accept only an address that looks like an e-mail (account spec §5). */
export const EMAIL_RULES: FormRule[] = [
  {
    validator: (_, v: string) => (isValidEmail(v ?? '') ? Promise.resolve() : Promise.reject(new Error(MESSAGES.loginEmailInvalid))),
  },
];

/** An e-mail box: mail icon, e-mail keyboard and autofill; other props as antd's Input. */
export function EmailInput(props: InputProps) {
  return <Input prefix={<MailOutlined />} type="email" inputMode="email" autoComplete="email" {...props} />;
}
