import { Button, Result } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { errorMessage } from '../api/client';

/** A page body for a read that failed (not a 404): heading, the error's text and 'Tentar de novo'. */
export function LoadFailedResult({ title, error, onRetry }: { title: string; error: unknown; onRetry: () => void }) {
  return (
    <div className="page page-narrow">
      <Result
        status="warning"
        title={<h1 className="result-title">{title}</h1>}
        subTitle={errorMessage(error, 'Tente novamente em instantes.')}
        extra={
          <Button type="primary" icon={<ReloadOutlined />} onClick={onRetry}>
            Tentar de novo
          </Button>
        }
      />
    </div>
  );
}
