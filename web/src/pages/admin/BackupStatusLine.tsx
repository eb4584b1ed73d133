import { useQuery } from '@tanstack/react-query';
import { Button } from 'antd';
import { CheckCircleOutlined, CloseCircleOutlined, DatabaseOutlined } from '@ant-design/icons';
import { api, errorMessage } from '../../api/client';
import type { BackupStatus } from '../../api/types';
import { adminKeys } from './shared/queries';

const when = (iso: string) =>
  new Date(iso).toLocaleString('pt-BR', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const size = (bytes: number | null) =>
  bytes == null
    ? ''
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toLocaleString('pt-BR', { maximumFractionDigits: 1 })} KiB`
      : `${(bytes / 1024 / 1024).toLocaleString('pt-BR', { maximumFractionDigits: 1 })} MiB`;

/**
 * The operations view's last backup (GET /api/admin/ops/backups): when it ran and whether it
 * worked; after a failure, also the last good one. Below the queue dashboard's link.
 */
export function BackupStatusLine() {
  // The menu's line and the phone drawer's each ask as they appear (the drawer's when it first opens).
  const q = useQuery({
    queryKey: adminKeys.backups,
    queryFn: ({ signal }) => api.get<BackupStatus>('/api/admin/ops/backups?recent=1', { signal }),
  });
  const status = q.data ?? null;
  const error = q.error && !q.isFetching ? errorMessage(q.error, 'Não foi possível ler o estado dos backups.') : null;

  if (error) {
    return (
      <div className="admin-console-backup" role="status">
        <DatabaseOutlined aria-hidden /> {error}{' '}
        <Button type="link" size="small" onClick={() => void q.refetch()}>
          Tentar de novo
        </Button>
      </div>
    );
  }
  if (!status) return null;
  const { last, lastSuccess } = status;
  let text: React.ReactNode;
  if (!status.enabled && !last) text = 'Backups feitos pela plataforma (BACKUP_DISABLED).';
  else if (!last) text = 'Nenhum backup ainda.';
  else if (last.ok) {
    text = (
      <>
        <CheckCircleOutlined aria-hidden /> Último backup: {when(last.finishedAt)} ({size(last.bytes)}
        {last.booksOk === false ? '; livros não conferiam' : ''})
      </>
    );
  } else {
    text = (
      <>
        <CloseCircleOutlined aria-hidden /> O último backup falhou ({when(last.finishedAt)}).{' '}
        {lastSuccess ? `Último que funcionou: ${when(lastSuccess.finishedAt)}.` : 'Nenhum backup funcionou ainda.'}
      </>
    );
  }
  return (
    <div
      className={`admin-console-backup${last && !last.ok ? ' admin-console-backup-failed' : ''}`}
      role="status"
      title={last?.error ?? last?.file ?? undefined}
    >
      {text}
    </div>
  );
}

export default BackupStatusLine;
