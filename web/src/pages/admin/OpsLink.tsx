import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Space } from 'antd';
import { DashboardOutlined } from '@ant-design/icons';
import { api, errorMessage } from '../../api/client';
import type { OpsLink as OpsLinkAnswer } from '../../api/types';

/**
 * 'Filas (operações)': asks the server for a one-time, 60 s link to the BullMQ dashboard
 * (POST /api/admin/ops/link) and opens it in a new tab; the link sets the /ops cookie and lands
 * on /ops/queues. Below the admin console's menu.
 *
 * The tab is opened at the click (a tab opened after an await is blocked as a pop-up) and sent to
 * the link once the server answers; if the call fails the tab is closed and the error shown here.
 */
export function OpsLink({ block = false }: { block?: boolean }) {
  const link = useMutation({
    mutationFn: (_tab: Window | null) => api.post<OpsLinkAnswer>('/api/admin/ops/link'),
    onSuccess: ({ url }, tab) => {
      if (tab && !tab.closed) {
        tab.opener = null;
        tab.location.href = url;
      } else {
        // Pop-ups blocked: go there in this tab.
        window.location.assign(url);
      }
    },
    onError: (_err, tab) => tab?.close(),
  });
  const loading = link.isPending;
  const error = link.error ? errorMessage(link.error, 'Não foi possível abrir o painel de filas. Tente novamente.') : null;

  function open() {
    link.mutate(window.open('about:blank', '_blank'));
  }

  return (
    <Space orientation="vertical" style={{ width: block ? '100%' : undefined }}>
      <Button icon={<DashboardOutlined />} loading={loading} onClick={open} block={block}>
        Filas (operações)
      </Button>
      {error && <Alert type="error" showIcon title={error} closable={{ onClose: () => link.reset() }} role="alert" />}
    </Space>
  );
}

export default OpsLink;
