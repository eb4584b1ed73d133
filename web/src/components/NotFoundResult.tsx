import { Result } from 'antd';
import { LinkButton } from './LinkButton';

/** A 404 page body: heading, explanation and one way out (`action`, leading to `to`). */
export function NotFoundResult({ title, subTitle, to, action }: { title: string; subTitle: string; to: string; action: string }) {
  return (
    <div className="page page-narrow">
      <Result
        status="404"
        title={<h1 className="result-title">{title}</h1>}
        subTitle={subTitle}
        extra={
          <LinkButton type="primary" to={to}>
            {action}
          </LinkButton>
        }
      />
    </div>
  );
}
