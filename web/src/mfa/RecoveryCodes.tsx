import { useEffect, useRef, useState } from 'react';
import { App, Button, Checkbox } from 'antd';
import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { copyText } from '../components/copyText';
import { saveText } from './download';
import { RECOVERY_FILENAME, recoveryCodesText } from './format';

/**
 * The recovery codes, shown once right after two-factor sign-in is turned on: the list, 'Copiar'
 * and 'Baixar .txt', and 'Guardei os códigos' to tick before 'Continuar'. The heading takes the
 * focus when it appears, so a screen reader starts reading here.
 */
export function RecoveryCodes({
  codes,
  account,
  onDone,
  doneLabel = 'Continuar',
}: {
  codes: string[];
  account?: string;
  onDone: () => void;
  doneLabel?: string;
}) {
  const { message } = App.useApp();
  const [saved, setSaved] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  const onCopy = async () => {
    if (await copyText(recoveryCodesText(codes, account))) message.success('Códigos copiados.');
    else message.error('Não foi possível copiar. Selecione os códigos e copie manualmente.');
  };

  return (
    <section className="mfa-codes" aria-labelledby="mfa-codes-title">
      <h2 id="mfa-codes-title" className="mfa-heading" tabIndex={-1} ref={heading}>
        Guarde seus códigos de recuperação
      </h2>
      <p>
        A verificação em duas etapas está ativada. Se você perder o acesso ao aplicativo autenticador, entre com um destes códigos no lugar
        do código de 6 dígitos. <strong>Cada código vale uma única vez</strong> e eles não serão mostrados de novo: guarde-os em um lugar
        seguro, como um gerenciador de senhas.
      </p>
      <ol className="mfa-codes-list" aria-label="Códigos de recuperação">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div className="mfa-codes-actions">
        <Button icon={<CopyOutlined aria-hidden />} onClick={() => void onCopy()}>
          Copiar
        </Button>
        <Button icon={<DownloadOutlined aria-hidden />} onClick={() => saveText(recoveryCodesText(codes, account), RECOVERY_FILENAME)}>
          Baixar .txt
        </Button>
      </div>
      <Checkbox checked={saved} onChange={(e) => setSaved(e.target.checked)} className="mfa-codes-saved">
        Guardei os códigos
      </Checkbox>
      <Button type="primary" block size="large" disabled={!saved} onClick={onDone} className="mfa-codes-done">
        {doneLabel}
      </Button>
    </section>
  );
}
