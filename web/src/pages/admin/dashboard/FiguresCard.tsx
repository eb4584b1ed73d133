/**
 * The business at a glance (console dashboard): sales and revenue per day over the last 30 days,
 * numbers sold per draw, the time each sold-out board took, PIX conversion (created → paid).
 * One call (GET /api/admin/dashboard/figures); charts by recharts, which only this lazy console
 * chunk loads. Each chart has a caption and a text summary for screen readers.
 */
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Skeleton, Statistic } from 'antd';
import { BarChartOutlined } from '@ant-design/icons';
import { Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api } from '../../../api/client';
import type { DashboardFigures } from '../../../../../src/shared/api/figures';
import { adminKeys } from '../shared/queries';

const GREEN = '#34d27b';
const AMBER = '#f5a623';
const GREY = 'rgba(255, 255, 255, 0.28)';
const AXIS = 'rgba(255, 255, 255, 0.72)';
const GRID = 'rgba(255, 255, 255, 0.08)';
const TOOLTIP = {
  contentStyle: { background: '#12241a', border: '1px solid rgba(52, 210, 123, 0.3)', color: '#fff' },
  labelStyle: { color: '#fff' },
};

const brl = (cents: number) => (cents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });
/** '2026-11-25' → '25/11' */
const shortDay = (d: string) => `${d.slice(8, 10)}/${d.slice(5, 7)}`;
const drawLabel = (id: number) => `#${String(id).padStart(3, '0')}`;
const pct = (x: number | null) => (x == null ? '—' : `${(x * 100).toLocaleString('pt-BR', { maximumFractionDigits: 1 })}%`);

/** Legend texts in the axis colour (the grey series colour is too faint for text: WCAG AA). */
const legendText = (value: string) => <span style={{ color: AXIS }}>{value}</span>;

export const figuresApi = {
  load: (signal?: AbortSignal) => api.get<DashboardFigures>('/api/admin/dashboard/figures', { signal }),
};

function ChartFigure(p: { id: string; title: string; summary: string; children: React.ReactElement }) {
  return (
    <figure className="figures-chart" aria-labelledby={`${p.id}-title`}>
      <figcaption id={`${p.id}-title`} className="figures-chart-title">
        {p.title}
      </figcaption>
      <p className="sr-only">{p.summary}</p>
      <div className="figures-chart-plot" aria-hidden="true">
        <ResponsiveContainer width="100%" height={240}>
          {p.children}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

export function FiguresCard() {
  const q = useQuery({ queryKey: adminKeys.figures, queryFn: ({ signal }) => figuresApi.load(signal) });
  const figures = q.data ?? null;
  const error = q.isFetching ? null : q.error;

  const title = (
    <span>
      <BarChartOutlined aria-hidden /> Números do negócio
    </span>
  );
  if (error && !figures) {
    return (
      <Card className="admin-card figures-card" title={title}>
        <Alert
          type="error"
          showIcon
          title="Não foi possível carregar os números do negócio."
          description={error instanceof Error ? error.message : undefined}
          action={<Button onClick={() => void q.refetch()}>Tentar de novo</Button>}
        />
      </Card>
    );
  }
  if (!figures) {
    return (
      <Card className="admin-card figures-card" title={title}>
        <Skeleton active paragraph={{ rows: 6 }} />
      </Card>
    );
  }

  const days = figures.per_day.map((d) => ({ ...d, label: shortDay(d.day), revenue: d.revenue_cents / 100 }));
  const draws = figures.draws.map((d) => ({ ...d, label: drawLabel(d.draw_id), left: Math.max(0, d.total_numbers - d.sold) }));
  const soldOut = draws.filter((d) => d.sellout_hours != null);
  const bestDay = figures.per_day.reduce((a, d) => (d.revenue_cents > a.revenue_cents ? d : a), figures.per_day[0]);

  return (
    <Card className="admin-card figures-card" title={title} extra={<span className="figures-window">Últimos {figures.days} dias</span>}>
      <div className="figures-stats">
        <Statistic title="Vendas" value={figures.totals.sales} />
        <Statistic title="Receita" value={brl(figures.totals.revenue_cents)} />
        <Statistic title="Números vendidos" value={figures.totals.numbers_sold} />
        <Statistic title="Conversão PIX" value={pct(figures.pix.conversion)} />
      </div>
      <div className="figures-grid">
        <ChartFigure
          id="figures-sales"
          title="Vendas e receita por dia"
          summary={`De ${shortDay(figures.from)} a ${shortDay(figures.to)}: ${figures.totals.sales === 1 ? '1 venda' : `${figures.totals.sales} vendas`}, ${brl(figures.totals.revenue_cents)}. Melhor dia: ${shortDay(bestDay.day)}, ${brl(bestDay.revenue_cents)}.`}
        >
          <ComposedChart accessibilityLayer={false} data={days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke={GRID} vertical={false} />
            <XAxis dataKey="label" tick={{ fill: AXIS, fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
            <YAxis
              yAxisId="r"
              tick={{ fill: AXIS, fontSize: 12 }}
              width={56}
              tickFormatter={(v: number) => `R$ ${v.toLocaleString('pt-BR')}`}
            />
            <YAxis yAxisId="n" orientation="right" allowDecimals={false} tick={{ fill: AXIS, fontSize: 12 }} width={32} />
            <Tooltip {...TOOLTIP} formatter={(v, name) => (name === 'Receita' ? brl(Number(v) * 100) : v)} />
            <Legend formatter={legendText} />
            <Bar
              yAxisId="r"
              dataKey="revenue"
              name="Receita"
              fill={GREEN}
              radius={[3, 3, 0, 0]}
              isAnimationActive={false}
              maxBarSize={48}
            />
            <Line yAxisId="n" dataKey="sales" name="Vendas" stroke={AMBER} strokeWidth={2} dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ChartFigure>

        <ChartFigure
          id="figures-draws"
          title="Números vendidos por sorteio"
          summary={draws.map((d) => `Sorteio ${d.label}: ${d.sold} de ${d.total_numbers}`).join('; ') || 'Nenhum sorteio.'}
        >
          <BarChart accessibilityLayer={false} data={draws} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke={GRID} vertical={false} />
            <XAxis dataKey="label" tick={{ fill: AXIS, fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fill: AXIS, fontSize: 12 }} width={40} />
            <Tooltip {...TOOLTIP} />
            <Legend formatter={legendText} />
            <Bar dataKey="sold" name="Vendidos" stackId="n" fill={GREEN} isAnimationActive={false} maxBarSize={48} />
            <Bar dataKey="left" name="Restantes" stackId="n" fill={GREY} radius={[3, 3, 0, 0]} isAnimationActive={false} maxBarSize={48} />
          </BarChart>
        </ChartFigure>

        {soldOut.length ? (
          <ChartFigure
            id="figures-sellout"
            title="Tempo até esgotar (horas)"
            summary={soldOut.map((d) => `Sorteio ${d.label}: ${d.sellout_hours} h`).join('; ')}
          >
            <BarChart accessibilityLayer={false} data={soldOut} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid stroke={GRID} vertical={false} />
              <XAxis dataKey="label" tick={{ fill: AXIS, fontSize: 12 }} />
              <YAxis tick={{ fill: AXIS, fontSize: 12 }} width={40} />
              <Tooltip {...TOOLTIP} formatter={(v) => `${Number(v).toLocaleString('pt-BR')} h`} />
              <Bar
                dataKey="sellout_hours"
                name="Horas até esgotar"
                fill={AMBER}
                radius={[3, 3, 0, 0]}
                isAnimationActive={false}
                maxBarSize={48}
              />
            </BarChart>
          </ChartFigure>
        ) : (
          <figure className="figures-chart" aria-labelledby="figures-sellout-title">
            <figcaption id="figures-sellout-title" className="figures-chart-title">
              Tempo até esgotar (horas)
            </figcaption>
            <p className="figures-empty">Nenhum dos sorteios mostrados esgotou ainda.</p>
          </figure>
        )}

        <ChartFigure
          id="figures-pix"
          title={`Conversão PIX: ${figures.pix.paid} pagos de ${figures.pix.created} gerados (${pct(figures.pix.conversion)})`}
          summary={`Cobranças PIX geradas nos últimos ${figures.days} dias: ${figures.pix.created}; pagas: ${figures.pix.paid}; conversão ${pct(figures.pix.conversion)}.`}
        >
          <BarChart accessibilityLayer={false} data={days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke={GRID} vertical={false} />
            <XAxis dataKey="label" tick={{ fill: AXIS, fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
            <YAxis allowDecimals={false} tick={{ fill: AXIS, fontSize: 12 }} width={32} />
            <Tooltip {...TOOLTIP} />
            <Legend formatter={legendText} />
            <Bar dataKey="pix_created" name="Gerados" fill={GREY} isAnimationActive={false} maxBarSize={48} />
            <Bar dataKey="pix_paid" name="Pagos" fill={GREEN} isAnimationActive={false} maxBarSize={48} />
          </BarChart>
        </ChartFigure>
      </div>
    </Card>
  );
}
