import { useI18n } from '../i18n/i18n';

type Status = 'running' | 'ok' | 'failed' | 'client';

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A tool call: its name and state, arguments and result folded, how long it took. */
export function ToolCard({ name, args, status, output, durationMs }: { name: string; args: unknown; status: Status; output?: string; durationMs?: number }) {
  const { t } = useI18n();
  const label = { running: t('tool.running'), ok: t('tool.ok'), failed: t('tool.failed'), client: t('tool.waitingClient') }[status];
  return (
    <details className={`tool-card ${status}`} data-tool={name}>
      <summary>
        <code>{name}</code>
        <span className={`badge ${status}`}>{label}</span>
        {durationMs !== undefined && <span className="muted small">{t('tool.duration', { ms: durationMs })}</span>}
      </summary>
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
