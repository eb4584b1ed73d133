import { useState } from 'react';
import { App, Button, Card, Descriptions } from 'antd';
import { DownloadOutlined, IdcardOutlined } from '@ant-design/icons';
import type { User } from '../../auth/user';
import { downloadMyData } from './downloads';
import { formatPhone, maskCpfPrivate } from './format';

/** Read-only registration data (account spec §2 Customer area), and the export of everything we keep (LGPD). */
export function RegistrationData({ user }: { user: User }) {
  const { message } = App.useApp();
  const [exporting, setExporting] = useState(false);
  const missing = <span className="muted">Não informado</span>;
  const exportData = async () => {
    setExporting(true);
    try {
      const failure = await downloadMyData();
      if (failure) message.error(failure);
      else message.success('Seus dados foram baixados.');
    } finally {
      setExporting(false);
    }
  };
  return (
    <Card
      title={
        <span>
          <IdcardOutlined aria-hidden /> Dados cadastrais
        </span>
      }
      className="account-card"
    >
      <Descriptions
        column={{ xs: 1, sm: 1, md: 2 }}
        layout="vertical"
        colon={false}
        items={[
          { key: 'name', label: 'Nome', children: user.name || missing },
          { key: 'email', label: 'E-mail', children: user.email },
          { key: 'phone', label: 'Celular', children: formatPhone(user.phone) || missing },
          { key: 'cpf', label: 'CPF', children: maskCpfPrivate(user.cpf) || missing },
        ]}
      />
      <p className="muted account-note">Para corrigir algum dado, fale com o nosso atendimento pelos canais informados no rodapé.</p>
      <Button className="account-export" icon={<DownloadOutlined />} loading={exporting} onClick={() => void exportData()}>
        Baixar meus dados
      </Button>
    </Card>
  );
}
