import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Card } from 'antd';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { onApiError } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { MfaEnrollment } from '../../mfa/MfaEnrollment';

/**
 * Whether the console must show the enrolment screen instead of its pages: GET /api/me says so
 * (`mfa_enrollment_required`: the deployment requires two-factor sign-in for administrators and
 * this one has none), or an admin call answered 403 mfa_enrollment_required (e.g. the requirement
 * was turned on while the console was open). `done` reloads the profile once enrolled.
 */
export function useMfaEnrollmentGate(): { required: boolean; done: () => Promise<void> } {
  const { user, refresh } = useAuth();
  const client = useQueryClient();
  const [refused, setRefused] = useState(false);
  useEffect(
    () =>
      onApiError((err) => {
        if (err.status === 403 && err.code === 'mfa_enrollment_required') setRefused(true);
      }),
    [],
  );
  const done = useCallback(async () => {
    await refresh();
    setRefused(false);
    // Answers refused before the enrolment are asked again.
    await client.invalidateQueries();
  }, [refresh, client]);
  return { required: refused || !!user?.mfa_enrollment_required, done };
}

/** The console's enrolment screen: why, then the enrolment (QR code, code, recovery codes). */
export function MfaEnrollmentScreen({ onDone }: { onDone: () => Promise<void> }) {
  useDocumentTitle('Ative a verificação em duas etapas');
  const { user } = useAuth();
  const heading = useRef<HTMLHeadingElement>(null);
  // The screen replaces the page the person opened: say so by moving the focus to its title.
  useEffect(() => heading.current?.focus(), []);
  return (
    <div className="page mfa-enroll-page">
      <Card className="mfa-enroll-card">
        <h1 className="mfa-enroll-title" tabIndex={-1} ref={heading}>
          <SafetyCertificateOutlined aria-hidden /> Ative a verificação em duas etapas
        </h1>
        <p className="mfa-enroll-why">
          Para proteger o painel, as contas de administração desta loja precisam da verificação em duas etapas: além da senha, cada acesso
          pede um código do aplicativo autenticador do seu celular. Ative agora para continuar.
        </p>
        <MfaEnrollment account={user?.email} onFinished={() => void onDone()} doneLabel="Continuar para o painel" />
      </Card>
    </div>
  );
}
