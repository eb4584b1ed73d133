import { BookOutlined, CalendarOutlined, NumberOutlined, TrophyOutlined } from '@ant-design/icons';
import { Link } from 'react-router-dom';
import { expectedDrawDate } from './drawDate';

const STEPS = [
  {
    icon: <BookOutlined />,
    title: 'Escolha o e-book',
    text: 'Escolha um e-book da categoria Lotomania e pague com PIX. O e-book fica disponível na sua área do cliente.',
  },
  {
    icon: <NumberOutlined />,
    title: 'Escolha seu número',
    text: 'Cada e-book comprado dá direito a escolher 1 número na tabela de 100 números (00 a 99). Comprou mais e-books? Escolhe mais números.',
  },
  {
    icon: <CalendarOutlined />,
    title: 'A tabela fecha',
    text: 'Quando todos os números são vendidos, a tabela fecha e o sorteio usa o primeiro concurso da Lotomania realizado após o fechamento.',
  },
  {
    icon: <TrophyOutlined />,
    title: 'Ganha o último número',
    text: 'A Lotomania sorteia 20 números. Ganha quem comprou o último número sorteado. Os prêmios já são informados líquidos de 25% de Imposto de Renda.',
  },
];

/** "How it works" (storefront spec §1 and §2 Home), with the draw-date note: today + 7 days. */
export function HowItWorks() {
  const drawDay = expectedDrawDate();
  return (
    <section id="como-funciona" className="how" aria-labelledby="como-funciona-title">
      <h2 id="como-funciona-title" className="section-title">
        Como funciona o sorteio
      </h2>
      <ol className="how-steps">
        {STEPS.map((s, i) => (
          <li key={s.title} className="how-step">
            <span className="how-step-icon" aria-hidden>
              {s.icon}
            </span>
            <div>
              <h3>
                <span className="how-step-n">{i + 1}.</span> {s.title}
              </h3>
              <p>{s.text}</p>
            </div>
          </li>
        ))}
      </ol>
      <div className="draw-note" role="note">
        <CalendarOutlined className="draw-note-icon" aria-hidden />
        <p>
          <strong>Previsão do sorteio: dia {drawDay.format('D')}</strong> ({drawDay.format('dddd, D [de] MMMM')}). A data é uma estimativa:
          o resultado vem sempre do primeiro concurso da Lotomania realizado após o fechamento da tabela. Confira as regras completas nos{' '}
          <Link to="/termos">Termos de Uso</Link>.
        </p>
      </div>
    </section>
  );
}
