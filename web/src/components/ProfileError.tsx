import { useState } from 'react';
import { Button, Result } from 'antd';
import { useNavigate } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { useAuth } from '../auth/AuthContext';

/** Shown when there is a session token but GET /api/me failed (not a 401): offers to try again. */
export function ProfileError() {
  const { profileError, refresh, logout } = useAuth();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);

  const retry = async () => {
    setBusy(true);
    try {
      await refresh();
    } finally {
      setBusy(false);
    }
  };

  const switchAccount = async () => {
    await logout();
    navigate('/login');
  };

  return (
    <div className="page page-narrow">
      <Result
        status="warning"
        title={<h1 className="result-title">Não foi possível carregar seus dados.</h1>}
        subTitle={errorMessage(profileError, 'Tente novamente em instantes.')}
        extra={
          <div className="result-actions">
            <Button type="primary" loading={busy} onClick={retry}>
              Tentar novamente
            </Button>
            <Button onClick={switchAccount}>Entrar com outra conta</Button>
          </div>
        }
      />
    </div>
  );
}
