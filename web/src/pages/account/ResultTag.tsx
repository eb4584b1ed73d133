import { Tag } from 'antd';
import { TrophyOutlined } from '@ant-design/icons';
import type { ResultBadge } from './participations';

const BADGE_CLASS: Record<ResultBadge, string> = {
  ABERTO: 'badge-open',
  FECHADO: 'badge-closed',
  SORTEADO: 'badge-drawn',
  CONTEMPLADO: 'badge-won',
  'NÃO CONTEMPLADO': 'badge-lost',
};

/** The draw result badge (account spec §4): ABERTO, FECHADO, SORTEADO, CONTEMPLADO or NÃO CONTEMPLADO. */
export function ResultTag({ badge }: { badge: ResultBadge }) {
  return (
    <Tag className={`result-badge ${BADGE_CLASS[badge]}`} icon={badge === 'CONTEMPLADO' ? <TrophyOutlined aria-hidden /> : undefined}>
      {badge}
    </Tag>
  );
}
