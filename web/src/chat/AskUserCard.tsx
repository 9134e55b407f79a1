import { useState } from 'react';
import { api, ok } from '../api/client';
import { useI18n } from '../i18n/i18n';
import { ErrorNote } from '../ui/ErrorNote';

/** The agent's `ask_user` question, answered in place. */
export function AskUserCard({ runId, question, answered, onAnswered }: { runId: string; question: string; answered: boolean; onAnswered(): void }) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState(false);
  const reply = async () => {
    try {
      await ok(api.POST('/api/v1/runs/{id}/reply', { params: { path: { id: runId } }, body: { text } }));
      setSent(true);
      onAnswered();
    } catch (failure) {
      setError(failure);
    }
  };
  const closed = answered || sent;
  return (
    <div className="ask-card" role="group" aria-label={t('ask.title')}>
      <p>
        <strong>{t('ask.title')}:</strong> {question}
      </p>
      {!closed && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void reply();
          }}
        >
          <label htmlFor={`ask-${runId}`} className="visually-hidden">
            {t('ask.answer')}
          </label>
          <input id={`ask-${runId}`} value={text} onChange={(e) => setText(e.target.value)} placeholder={t('ask.answer')} required />
          <button type="submit" className="primary" disabled={!text.trim()}>
            {t('ask.send')}
          </button>
        </form>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
