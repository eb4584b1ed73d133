import type { ReactNode } from 'react';
import { Button } from 'antd';
import { ArrowLeftOutlined, HomeOutlined } from '@ant-design/icons';
import { LinkButton } from '../../components/LinkButton';
import { useGoBack } from '../../components/useGoBack';

/** Back (previous page) and 'Início' buttons, then the page title (storefront spec §2 Terms). */
export function LegalPageHeader({ title, subtitle, badge }: { title: string; subtitle?: ReactNode; badge?: ReactNode }) {
  const goBack = useGoBack();
  return (
    <header className="legal-header">
      <div className="legal-nav">
        <Button icon={<ArrowLeftOutlined />} onClick={goBack}>
          Voltar
        </Button>
        <LinkButton icon={<HomeOutlined />} to="/">
          Início
        </LinkButton>
      </div>
      <div className="legal-title-row">
        {badge}
        <div>
          <h1 className="legal-title">{title}</h1>
          {subtitle && <p className="legal-subtitle">{subtitle}</p>}
        </div>
      </div>
    </header>
  );
}
