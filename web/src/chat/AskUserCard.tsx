import { useState } from 'react';
import { api, ok } from '../api/client';
import { useI18n } from '../i18n/i18n';
import type { AskOption } from '../run/run-state';
import { ErrorNote } from '../ui/ErrorNote';

interface AskUserCardProps {
  runId: string;
  question: string;
  /** the choices the agent offered: one click answers; the user may still write their own */
  options?: AskOption[];
  answered: boolean;
  onAnswered(): void;
}

/** The agent's `ask_user` question, answered in place. */
export function AskUserCard({ runId, question, options, answered, onAnswered }: AskUserCardProps) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState(false);
  const reply = async (body: { text: string } | { optionId: string }) => {
    try {
      await ok(api.POST('/api/v1/runs/{id}/reply', { params: { path: { id: runId } }, body }));
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
      {!closed && options && (
        <div className="ask-options" role="group" aria-label={t('ask.options')}>
          {options.map((option) => (
            <button key={option.id} type="button" onClick={() => void reply({ optionId: option.id })}>
              {option.label}
            </button>
          ))}
        </div>
      )}
      {!closed && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void reply({ text });
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
