import { forwardRef } from 'react';
import { Input, type InputProps, type InputRef } from 'antd';
import { KeyOutlined, MobileOutlined } from '@ant-design/icons';

/**
 * The code box of two-factor sign-in: the 6-digit code of the authenticator app (numeric keyboard,
 * the phone's one-time-code autofill), or, with `recovery`, a single-use recovery code (letters
 * and a dash, no autofill, no autocorrection). Other props as antd's Input (Form.Item fills
 * value/onChange/id).
 */
export const OneTimeCodeInput = forwardRef<InputRef, InputProps & { recovery?: boolean }>(function OneTimeCodeInput(
  { recovery = false, ...props },
  ref,
) {
  return recovery ? (
    <Input
      ref={ref}
      prefix={<KeyOutlined aria-hidden />}
      autoComplete="off"
      autoCapitalize="none"
      autoCorrect="off"
      spellCheck={false}
      placeholder="xxxxx-xxxxx"
      maxLength={64}
      className="mfa-code-input mfa-code-input--recovery"
      {...props}
    />
  ) : (
    <Input
      ref={ref}
      prefix={<MobileOutlined aria-hidden />}
      autoComplete="one-time-code"
      inputMode="numeric"
      pattern="[0-9 ]*"
      placeholder="000000"
      maxLength={7}
      className="mfa-code-input"
      {...props}
    />
  );
});
