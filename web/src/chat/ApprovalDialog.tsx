import { useState } from 'react';
import { api, ok } from '../api/client';
import { useI18n } from '../i18n/i18n';
import type { Waiting } from '../run/run-state';
import { Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/ErrorNote';

type Approval = Extract<Waiting, { kind: 'approval' }>;

/** A tool call that waits for a person: approve (once, or always here), or reject with a reason. */
export function ApprovalDialog({ runId, request, onDecided }: { runId: string; request: Approval; onDecided(): void }) {
  const { t } = useI18n();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const decide = async (decision: 'approve' | 'reject', remember?: 'conversation') => {
    setBusy(true);
    try {
      await ok(
        api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
          params: { path: { id: runId, approvalId: request.approvalId } },
          body: { decision, ...(reason.trim() && decision === 'reject' ? { reason: reason.trim() } : {}), ...(remember ? { remember } : {}) },
        }),
      );
      onDecided();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('approval.title')} onClose={() => undefined} className="approval">
      <p>
        <code>{request.name}</code> · <span className={`badge risk-${request.risk}`}>{t('approval.risk', { risk: request.risk })}</span>
      </p>
      {request.reason && <p className="muted small">{t('approval.assessed', { reason: request.reason })}</p>}
      <h4>{t('tool.args')}</h4>
      <pre>{JSON.stringify(request.args, null, 2)}</pre>
      <label htmlFor="approval-reason">{t('approval.reason')}</label>
      <input id="approval-reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} />
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button className="danger" disabled={busy} onClick={() => void decide('reject')}>
          {t('approval.reject')}
        </button>
        <button disabled={busy} onClick={() => void decide('approve', 'conversation')}>
          {t('approval.approveRemember', { name: request.name })}
        </button>
        <button className="primary" disabled={busy} onClick={() => void decide('approve')} autoFocus>
          {t('approval.approve')}
        </button>
      </div>
    </Dialog>
  );
}
