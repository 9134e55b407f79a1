import { useI18n } from '../i18n/i18n';
import type { Subrun } from '../run/run-state';

type Status = 'running' | 'ok' | 'failed' | 'client';

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

interface ToolCardProps {
  name: string;
  args: unknown;
  status: Status;
  output?: string;
  durationMs?: number;
  /** the child run a `delegate` call started */
  subrun?: Subrun;
}

/** A tool call: its name and state, arguments and result folded, how long it took, the sub-run it started. */
export function ToolCard({ name, args, status, output, durationMs, subrun }: ToolCardProps) {
  const { t } = useI18n();
  const label = { running: t('tool.running'), ok: t('tool.ok'), failed: t('tool.failed'), client: t('tool.waitingClient') }[status];
  return (
    <details className={`tool-card ${status}`} data-tool={name}>
      <summary>
        <code>{name}</code>
        <span className={`badge ${status}`}>{label}</span>
        {durationMs !== undefined && <span className="muted small">{t('tool.duration', { ms: durationMs })}</span>}
        {subrun && (
          <span className="muted small subrun" data-subrun={subrun.runId}>
            {t('tool.subrun', { agent: subrun.agent, status: t(`tool.subrun.${subrun.status}`) })}
          </span>
        )}
      </summary>
      {subrun && (
        <p className="muted small">
          {t('tool.subrunId')} <code>{subrun.runId}</code> · {subrun.state}
        </p>
      )}
      {args !== undefined && (
        <>
          <h4>{t('tool.args')}</h4>
          <pre>{show(args)}</pre>
        </>
      )}
      {output !== undefined && (
        <>
          <h4>{t('tool.result')}</h4>
          <pre className={status === 'failed' ? 'error-text' : undefined}>{output}</pre>
        </>
      )}
    </details>
  );
}
