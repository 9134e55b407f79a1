import { useI18n } from '../i18n/i18n';

/** A failed call, in the server's own (localised) words. */
export function ErrorNote({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useI18n();
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div role="alert" className="error-note">
      <span>{t('common.error', { message })}</span>
      {onRetry && (
        <button className="link" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
