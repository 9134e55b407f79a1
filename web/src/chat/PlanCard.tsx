import { useState } from 'react';
import { api, ok } from '../api/client';
import type { PlanStep } from '../api/events';
import { useI18n } from '../i18n/i18n';
import { ErrorNote } from '../ui/ErrorNote';

/** Plan mode: the proposed steps, editable while the run waits, then approved (as edited) or rejected. */
export function PlanCard({ runId, steps, open, onDecided }: { runId: string; steps: PlanStep[]; open: boolean; onDecided(): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<PlanStep[]>(steps);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const edit = (index: number, change: Partial<PlanStep>) => setDraft((current) => current.map((step, i) => (i === index ? { ...step, ...change } : step)));
  const resume = async (approve: boolean) => {
    setBusy(true);
    try {
      const cleaned = draft.map((s) => ({ title: s.title.trim(), ...(s.detail?.trim() ? { detail: s.detail.trim() } : {}) })).filter((s) => s.title);
      const body = approve ? { approve, plan: { steps: cleaned } } : { approve, ...(reason.trim() ? { reason: reason.trim() } : {}) };
      await ok(api.POST('/api/v1/runs/{id}/resume', { params: { path: { id: runId } }, body }));
      onDecided();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  if (!open) {
    const started = steps.some((step) => step.status);
    return (
      <div className="plan-card">
        <h3>{t(started ? 'plan.progress' : 'plan.title')}</h3>
        <ol>
          {steps.map((step, i) => (
            <li key={i} className={`plan-step ${step.status ?? 'pending'}`} aria-current={step.status === 'running' ? 'step' : undefined}>
              <strong>{step.title}</strong>
              {started && (
                <span className="plan-status">
                  {' '}
                  {t(`plan.status.${step.status ?? 'pending'}`)}
                  {step.attempts && step.attempts > 1 ? ` (${t('plan.attempt', { n: step.attempts })})` : ''}
                </span>
              )}
              {step.detail && <p className="muted">{step.detail}</p>}
              {step.summary && <p className="plan-summary">{step.summary}</p>}
            </li>
          ))}
        </ol>
      </div>
    );
  }
  return (
    <form
      className="plan-card editing"
      aria-label={t('plan.title')}
      onSubmit={(e) => {
        e.preventDefault();
        void resume(true);
      }}
    >
      <h3>{t('plan.title')}</h3>
      <ol>
        {draft.map((step, i) => (
          <li key={i}>
            <input aria-label={t('plan.stepTitle', { n: i + 1 })} value={step.title} onChange={(e) => edit(i, { title: e.target.value })} required />
            <textarea aria-label={t('plan.stepDetail', { n: i + 1 })} value={step.detail ?? ''} onChange={(e) => edit(i, { detail: e.target.value })} rows={1} />
            <button type="button" className="link small" aria-label={t('plan.removeStep', { n: i + 1 })} onClick={() => setDraft((c) => c.filter((_, j) => j !== i))} disabled={draft.length === 1}>
              ×
            </button>
          </li>
        ))}
      </ol>
      <button type="button" className="link" onClick={() => setDraft((c) => [...c, { title: '' }])}>
        + {t('plan.addStep')}
      </button>
      <label htmlFor={`plan-reason-${runId}`}>{t('plan.rejectReason')}</label>
      <input id={`plan-reason-${runId}`} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} />
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" className="danger" disabled={busy} onClick={() => void resume(false)}>
          {t('plan.reject')}
        </button>
        <button type="submit" className="primary" disabled={busy || !draft.some((s) => s.title.trim())}>
          {t('plan.approve')}
        </button>
      </div>
    </form>
  );
}
