import { useState, type FormEvent } from 'react';
import { api, ok } from '../api/client';
import { ApiError } from '../api/errors';
import { session } from '../api/session';
import { useI18n } from '../i18n/i18n';

/** Asks for an API key and keeps it for this tab once the server accepts it. */
export function SignIn({ onSignedIn }: { onSignedIn(): void }) {
  const { t } = useI18n();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    session.setApiKey(key.trim());
    try {
      await ok(api.GET('/api/v1/conversations', { params: { query: { limit: 1 } } }));
      onSignedIn();
    } catch (failure) {
      session.setApiKey(null);
      setError(failure instanceof ApiError && failure.status === 401 ? t('auth.rejected') : failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">{t('auth.title')}</h1>
        <p>{t('auth.explain')}</p>
        <label htmlFor="api-key">{t('auth.key')}</label>
        <input id="api-key" type="password" autoComplete="current-password" value={key} onChange={(e) => setKey(e.target.value)} required autoFocus />
        {error && (
          <p role="alert" className="error-text">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy || !key.trim()}>
          {t('auth.submit')}
        </button>
      </form>
    </main>
  );
}
