import { CalendarOutlined, WhatsAppOutlined } from '@ant-design/icons';
import { Link } from 'react-router-dom';
import { BRAND } from '../../../brand';
import { btnClass } from '../../../components/plain/Button';
import { expectedDrawDate } from '../../home/drawDate';

/**
 * Which Lotomania draw decides the board (storefront spec §2 "Number board": the draw of the day seven days
 * ahead, or the first Lotomania draw after the board closes) and the community group link.
 */
export function DrawRulesNote() {
  const day = expectedDrawDate();
  return (
    <section className="numbers-note" aria-labelledby="numbers-note-title">
      <h2 id="numbers-note-title" className="numbers-note-title">
        <CalendarOutlined aria-hidden /> Quando é o sorteio?
      </h2>
      <p>
        Quando todos os números são vendidos, a tabela fecha e o resultado vem do{' '}
        <strong>primeiro concurso da Lotomania realizado após o fechamento</strong>. Previsão: concurso do dia{' '}
        <strong className="text-amber">{day.format('D')}</strong> ({day.format('dddd, D [de] MMMM')}). Ganha quem tiver o último número
        sorteado. Regras completas nos <Link to="/termos">Termos de Uso</Link>.
      </p>
      <a
        href={BRAND.communityGroupUrl}
        target="_blank"
        rel="noopener noreferrer"
        className={btnClass({ block: true }, 'numbers-group-link')}
      >
        <WhatsAppOutlined aria-hidden /> <span>Entrar no grupo da comunidade</span>
      </a>
    </section>
  );
}
