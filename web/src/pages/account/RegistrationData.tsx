import { Card, Descriptions } from 'antd';
import { IdcardOutlined } from '@ant-design/icons';
import type { User } from '../../auth/user';
import { formatPhone, maskCpfPrivate } from './format';

/** Read-only registration data (account spec §2 Customer area). */
export function RegistrationData({ user }: { user: User }) {
  const missing = <span className="muted">Não informado</span>;
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
      <p className="muted account-note">
        Para corrigir algum dado, fale com o nosso atendimento pelos canais informados no rodapé.
      </p>
    </Card>
  );
}
