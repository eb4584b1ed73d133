import { useCallback, useEffect, useRef, useState } from 'react';
import { Form, type InputRef } from 'antd';
import { errorMessage } from '../api/client';
import { codeErrorProps, isInvalidCode, recoveryCode, recoveryRule, totpDigits, totpRule } from './mfaApi';

export interface SendCodeOptions {
  /** The alert's text when the failure says nothing better. */
  failed: string;
  /**
   * A failure that is not a refused code, before the alert: return true when handled (then no
   * alert is shown).
   */
  onOtherError?: (err: unknown) => boolean;
  /** Sending ends after a success too (a dialog that stays mounted); by default the screen moves on still sending. */
  settleOnSuccess?: boolean;
}

/**
 * The state of a box taking a two-factor code (sign-in step, enrolment, turning it off): the form,
 * the box's ref, which kind of code (app or recovery), sending, the alert (`error`) and the
 * server's refusal of the code shown on the field (`codeError`, see codeErrorProps). A refused code
 * gives the focus back to the box (once enabled again) with its text selected to retype.
 */
export function useCodeEntry() {
  const [form] = Form.useForm<{ code: string }>();
  const [recovery, setRecovery] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The server's refusal of the code (wrong, reused, spent): on the field, announced.
  const [codeError, setCodeError] = useState<string | null>(null);
  const input = useRef<InputRef>(null);
  useEffect(() => {
    if (codeError) input.current?.focus({ cursor: 'all' });
  }, [codeError]);

  const clearErrors = useCallback(() => {
    setError(null);
    setCodeError(null);
  }, []);

  /** 'Usar um código de recuperação' / 'Usar o código do aplicativo': an empty box of the other kind. */
  const switchKind = () => {
    form.resetFields();
    clearErrors();
    setRecovery((r) => !r);
  };

  /** Back to the app's code, no message (a dialog that closed). */
  const reset = () => {
    setRecovery(false);
    clearErrors();
  };

  const focus = () => input.current?.focus();

  /**
   * Sends the typed code (digits only for the app's, normalised for a recovery code) through
   * `send`; a refused code goes on the field, any other failure to the alert (or `onOtherError`).
   */
  const sendCode = async (code: string, send: (code: string) => Promise<void>, opts: SendCodeOptions) => {
    clearErrors();
    setSending(true);
    try {
      await send(recovery ? recoveryCode(code) : totpDigits(code));
      if (opts.settleOnSuccess) setSending(false);
    } catch (err) {
      setSending(false);
      if (isInvalidCode(err)) setCodeError(errorMessage(err, 'Código inválido.'));
      else if (!opts.onOtherError?.(err)) setError(errorMessage(err, opts.failed));
    }
  };

  /** The code Form.Item's props (besides its label and key): rules of the current kind, the refusal. */
  const itemProps = {
    name: 'code',
    rules: [recovery ? recoveryRule : totpRule],
    validateTrigger: 'onSubmit',
    ...codeErrorProps(codeError),
  };

  return { form, input, recovery, sending, error, codeError, clearErrors, switchKind, reset, focus, sendCode, itemProps };
}
