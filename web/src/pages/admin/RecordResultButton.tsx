import { useState } from 'react';
import { Alert, Button, Descriptions, Form, Input, InputNumber, Modal, Space, Tag } from 'antd';
import { CloudDownloadOutlined, TrophyOutlined } from '@ant-design/icons';
import { api, errorMessage } from '../../api/client';
import { WALK_REASON_SHORT } from '../../statusLabels';
import type { DrawResult, DrawStatus, ResultPreview } from '../../api/types';
import { numbersProblem, parseNumbers } from './resultNumbers';

/** The draw the button acts on (a row of the admin draws table). */
export interface RecordResultDraw {
  id: number;
  title: string;
  status: DrawStatus;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The contest's date-time as typed (datetime-local, Brasília time, UTC−3) ⇄ ISO 8601. */
const localToIso = (v: string) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v) ? `${v}:00-03:00` : null);
const isoToLocal = (iso: string) => new Date(new Date(iso).getTime() - 3 * 3600_000).toISOString().slice(0, 16);

/**
 * 'Registrar resultado': on a closed draw, the operator types the contest number and
 * the 20 numbers in draw order, or 'Buscar resultado' fetches them from the results service;
 * the server computes the winner and the dialog shows it before 'Confirmar' records it. The
 * winner is never typed in. On the held raffles page, for each closed draw.
 */
export function RecordResultButton({ draw, onDone }: { draw: RecordResultDraw; onDone?: (result: DrawResult) => void }) {
  const [open, setOpen] = useState(false);
  const [contest, setContest] = useState<number | null>(null);
  const [numbersText, setNumbersText] = useState('');
  const [drawnAt, setDrawnAt] = useState<string | null>(null);
  const [preview, setPreview] = useState<ResultPreview | null>(null);
  const [busy, setBusy] = useState<'fetch' | 'preview' | 'confirm' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<DrawResult | null>(null);

  // Only a closed draw takes a result; an open dialog stays until closed (the parent may already show the draw as drawn).
  if (draw.status !== 'closed' && !open) return null;

  const reset = () => {
    setPreview(null);
    setError(null);
  };
  const close = () => {
    setOpen(false);
    setBusy(null);
    reset();
    setDone(null);
  };

  const buscar = async () => {
    reset();
    setBusy('fetch');
    try {
      const p = await api.post<ResultPreview>(`/api/admin/draws/${draw.id}/result/fetch`, contest ? { contest_number: contest } : {});
      setContest(p.contest_number);
      setNumbersText(p.numbers.map(pad).join(' '));
      setDrawnAt(p.drawn_at ? isoToLocal(p.drawn_at) : '');
      setPreview(p);
    } catch (e) {
      setError(errorMessage(e, 'Não foi possível buscar o resultado.'));
    } finally {
      setBusy(null);
    }
  };

  const calcular = async () => {
    reset();
    const nums = parseNumbers(numbersText);
    // The contest's real date decides which draws it decides and its order among the contests.
    const problem = !contest
      ? 'Informe o número do concurso.'
      : (numbersProblem(nums) ?? (localToIso(drawnAt ?? '') ? null : 'Informe a data e a hora do concurso.'));
    if (problem) {
      setError(problem);
      return;
    }
    setBusy('preview');
    try {
      setPreview(
        await api.post<ResultPreview>(`/api/admin/draws/${draw.id}/result/preview`, {
          contest_number: contest,
          numbers: nums,
          drawn_at: localToIso(drawnAt ?? ''),
        }),
      );
    } catch (e) {
      setError(errorMessage(e, 'Não foi possível calcular o vencedor.'));
    } finally {
      setBusy(null);
    }
  };

  const confirmar = async () => {
    if (!preview) return;
    setError(null);
    setBusy('confirm');
    try {
      const r = await api.post<{ result: DrawResult }>(`/api/admin/draws/${draw.id}/result`, {
        contest_number: preview.contest_number,
        numbers: preview.numbers,
        ...(preview.drawn_at ? { drawn_at: preview.drawn_at } : {}),
      });
      setDone(r.result);
      onDone?.(r.result);
    } catch (e) {
      setError(errorMessage(e, 'Não foi possível registrar o resultado.'));
    } finally {
      setBusy(null);
    }
  };

  const nums = parseNumbers(numbersText);
  return (
    <>
      <Button type="primary" icon={<TrophyOutlined />} onClick={() => setOpen(true)}>
        Registrar resultado
      </Button>
      <Modal
        open={open}
        title={`Registrar resultado — ${draw.title}`}
        onCancel={close}
        destroyOnHidden
        footer={
          done ? (
            <Button type="primary" onClick={close}>
              Fechar
            </Button>
          ) : (
            <Space wrap>
              <Button onClick={close}>Cancelar</Button>
              <Button onClick={calcular} loading={busy === 'preview'} disabled={!!busy}>
                Calcular vencedor
              </Button>
              <Button
                type="primary"
                onClick={confirmar}
                loading={busy === 'confirm'}
                disabled={!preview || !!busy || !!preview.stored_numbers}
              >
                Confirmar
              </Button>
            </Space>
          )
        }
      >
        {done ? (
          <Alert
            type="success"
            showIcon
            title={
              done.winning_number !== null
                ? `Resultado registrado: número ${pad(done.winning_number)} (${done.winner_initials ?? '—'}).`
                : 'Resultado registrado: sorteio sem vencedor.'
            }
            description={<a href={`/resultado/${done.draw_id}`}>Ver a página pública do resultado</a>}
          />
        ) : (
          <Form layout="vertical" onFinish={calcular}>
            <Form.Item label="Número do concurso" htmlFor="result-contest">
              <Space.Compact style={{ width: '100%' }}>
                <InputNumber
                  id="result-contest"
                  min={1}
                  precision={0}
                  value={contest}
                  onChange={(v) => {
                    setContest(typeof v === 'number' ? v : null);
                    reset();
                  }}
                  style={{ width: '100%' }}
                  placeholder="ex.: 2700"
                />
                <Button icon={<CloudDownloadOutlined />} onClick={buscar} loading={busy === 'fetch'} disabled={!!busy}>
                  Buscar resultado
                </Button>
              </Space.Compact>
            </Form.Item>
            <Form.Item
              label="Os 20 números, na ordem do sorteio"
              htmlFor="result-numbers"
              extra={
                nums && nums.length
                  ? `${nums.length} de 20 números`
                  : 'Separados por espaço ou vírgula. Sem concurso, “Buscar resultado” traz o último.'
              }
            >
              <Input.TextArea
                id="result-numbers"
                rows={2}
                value={numbersText}
                onChange={(e) => {
                  setNumbersText(e.target.value);
                  reset();
                }}
                placeholder="00 64 02 53 71 …"
              />
            </Form.Item>
            <Form.Item
              label="Data e hora do concurso (horário de Brasília)"
              htmlFor="result-drawn-at"
              extra="“Buscar resultado” preenche a data oficial."
            >
              <Input
                id="result-drawn-at"
                type="datetime-local"
                value={drawnAt ?? ''}
                onChange={(e) => {
                  setDrawnAt(e.target.value);
                  reset();
                }}
              />
            </Form.Item>
          </Form>
        )}
        {error && <Alert type="error" showIcon title={error} style={{ marginTop: 8 }} />}
        {preview && !done && (
          <div aria-live="polite" style={{ marginTop: 8 }}>
            {preview.stored_numbers && (
              <Alert
                type="warning"
                showIcon
                title={`O concurso ${preview.contest_number} já foi registrado com outros números.`}
                description="Para corrigir, use: cotaverde results correct."
                style={{ marginBottom: 8 }}
              />
            )}
            <Descriptions size="small" column={1} bordered title="Vencedor calculado">
              <Descriptions.Item label="Concurso">
                {preview.contest_number}
                {preview.drawn_at ? ` (${new Date(preview.drawn_at).toLocaleDateString('pt-BR')})` : ''}
              </Descriptions.Item>
              <Descriptions.Item label="Número vencedor">
                {preview.winning_number !== null ? <Tag color="gold">{pad(preview.winning_number)}</Tag> : 'Sem vencedor'}
              </Descriptions.Item>
              <Descriptions.Item label="Contemplado">
                {preview.winner_name ? `${preview.winner_name} (${preview.winner_email})` : '—'}
              </Descriptions.Item>
              <Descriptions.Item label="Números passados">
                {preview.walk.length
                  ? preview.walk.map((w) => `${pad(w.n)} ${WALK_REASON_SHORT[w.reason]}`).join(', ')
                  : 'nenhum: o último sorteado foi vendido'}
              </Descriptions.Item>
              <Descriptions.Item label="Vendidos que contam">{preview.sold_count}</Descriptions.Item>
            </Descriptions>
          </div>
        )}
      </Modal>
    </>
  );
}

export default RecordResultButton;
