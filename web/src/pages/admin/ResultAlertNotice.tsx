import { Alert } from 'antd';
import type { ResultAlert } from '../../api/types';

/**
 * A closed draw held up by the results service (RULES W9): its contest was published without the
 * draw order, so the job will not decide it; the server's message says what to do. Shown in the
 * console's draws views (the dashboard's draws, the held raffles).
 */
export function ResultAlertNotice({ alert, drawLabel }: { alert: ResultAlert; drawLabel?: string }) {
  return (
    <Alert
      className="adm-result-alert"
      style={{ margin: '8px 0', maxWidth: 640 }}
      type="warning"
      showIcon
      title={`${drawLabel ? `${drawLabel}: concurso` : 'Concurso'} ${alert.contest_number} publicado sem a ordem do sorteio`}
      description={alert.message}
    />
  );
}
