import type { CSSProperties, ReactNode } from 'react';
import { Alert, Button } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';

/** A load error shown to the person, with 'Tentar de novo' (`icon`: the reload icon on the button). */
export function RetryAlert({
  title,
  onRetry,
  icon,
  className,
  style,
}: {
  title: ReactNode;
  onRetry: () => void;
  icon?: boolean;
  className?: string;
  style?: CSSProperties;
}) {
  return (
    <Alert
      type="error"
      showIcon
      title={title}
      className={className}
      style={style}
      action={
        <Button size="small" icon={icon ? <ReloadOutlined /> : undefined} onClick={onRetry}>
          Tentar de novo
        </Button>
      }
    />
  );
}
