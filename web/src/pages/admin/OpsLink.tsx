import { useState } from 'react';
import { Alert, Button, Space } from 'antd';
import { DashboardOutlined } from '@ant-design/icons';
import { api, errorMessage } from '../../api/client';
import type { OpsLink as OpsLinkAnswer } from '../../api/types';

/**
 * 'Filas (operações)' (issue 10): asks the server for a one-time, 60 s link to the BullMQ
 * dashboard (POST /api/admin/ops/link) and opens it in a new tab; the link sets the /ops cookie
 * and lands on /ops/queues. For the admin console's navigation (the console helper places it).
 *
 * The tab is opened at the click (a tab opened after an await is blocked as a pop-up) and sent to
 * the link once the server answers; if the call fails the tab is closed and the error shown here.
 */
export function OpsLink({ block = false }: { block?: boolean }) {
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function open() {
    setError(null);
    setLoading(true);
    const tab = window.open('about:blank', '_blank');
    try {
      const { url } = await api.post<OpsLinkAnswer>('/api/admin/ops/link');
      if (tab && !tab.closed) {
        tab.opener = null;
        tab.location.href = url;
      } else {
        // Pop-ups blocked: go there in this tab.
        window.location.assign(url);
      }
    } catch (err) {
      tab?.close();
      setError(errorMessage(err, 'Não foi possível abrir o painel de filas. Tente novamente.'));
    } finally {
      setLoading(false);
    }
  }

  return (
    <Space orientation="vertical" style={{ width: block ? '100%' : undefined }}>
      <Button icon={<DashboardOutlined />} loading={loading} onClick={() => void open()} block={block}>
        Filas (operações)
      </Button>
      {error && <Alert type="error" showIcon title={error} closable={{ onClose: () => setError(null) }} role="alert" />}
    </Space>
  );
}

export default OpsLink;
