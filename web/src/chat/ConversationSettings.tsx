import { useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import type { Conversation, KnowledgeBase, RetrievalMode } from '../api/types';
import { useI18n } from '../i18n/i18n';
import { Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/ErrorNote';

const RETRIEVAL: RetrievalMode[] = ['classic', 'agentic', 'off'];

/** Per conversation: the knowledge bases it reads, how it retrieves, debug events. */
export function ConversationSettingsDialog({ conversation, onClose, onSaved }: { conversation: Conversation; onClose(): void; onSaved(c: Conversation): void }) {
  const { t } = useI18n();
  const [bases, setBases] = useState<KnowledgeBase[] | null>(null);
  const [selected, setSelected] = useState<string[]>(conversation.settings.knowledgeBaseIds ?? []);
  const [retrieval, setRetrieval] = useState<RetrievalMode>(conversation.settings.retrieval ?? 'classic');
  const [debug, setDebug] = useState(conversation.settings.debug ?? false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    ok(api.GET('/api/v1/knowledge-bases'))
      .then((list) => setBases(list.items))
      .catch(setError);
  }, []);

  const save = async () => {
    try {
      const saved = await ok(api.PATCH('/api/v1/conversations/{id}', { params: { path: { id: conversation.id } }, body: { settings: { knowledgeBaseIds: selected, retrieval, debug } } }));
      onSaved(saved);
      onClose();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <Dialog title={t('conv.settings')} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <fieldset>
          <legend>{t('settings.knowledgeBases')}</legend>
          {bases === null && <p className="muted">{t('common.loading')}</p>}
          {bases?.length === 0 && <p className="muted">{t('settings.noKnowledgeBases')}</p>}
          {bases?.map((kb) => (
            <label key={kb.id} className="check">
              <input type="checkbox" checked={selected.includes(kb.id)} onChange={(e) => setSelected((s) => (e.target.checked ? [...s, kb.id] : s.filter((id) => id !== kb.id)))} />
              {kb.name}
            </label>
          ))}
        </fieldset>
        <label htmlFor="settings-retrieval">{t('settings.retrieval')}</label>
        <select id="settings-retrieval" value={retrieval} onChange={(e) => setRetrieval(e.target.value as RetrievalMode)}>
          {RETRIEVAL.map((mode) => (
            <option key={mode} value={mode}>
              {t(`settings.retrieval.${mode}`)}
            </option>
          ))}
        </select>
        <label className="check">
          <input type="checkbox" checked={debug} onChange={(e) => setDebug(e.target.checked)} />
          {t('settings.debug')}
        </label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary">
            {t('settings.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
