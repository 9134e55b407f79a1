import { useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import type { Agent, Conversation, KnowledgeBase, RetrievalMode } from '../api/types';
import { useI18n } from '../i18n/i18n';
import { Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/ErrorNote';

const RETRIEVAL: RetrievalMode[] = ['classic', 'agentic', 'off'];

/** Per conversation: its agent, the knowledge bases it reads, how it retrieves, debug events. */
export function ConversationSettingsDialog({ conversation, onClose, onSaved }: { conversation: Conversation; onClose(): void; onSaved(c: Conversation): void }) {
  const { t } = useI18n();
  const [bases, setBases] = useState<KnowledgeBase[] | null>(null);
  const [selected, setSelected] = useState<string[]>(conversation.settings.knowledgeBaseIds ?? []);
  const [retrieval, setRetrieval] = useState<RetrievalMode>(conversation.settings.retrieval ?? 'classic');
  const [debug, setDebug] = useState(conversation.settings.debug ?? false);
  const [agents, setAgents] = useState<Agent[] | null>(null);
  const [agentId, setAgentId] = useState(conversation.agentId);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    ok(api.GET('/api/v1/knowledge-bases'))
      .then((list) => setBases(list.items))
      .catch(setError);
    ok(api.GET('/api/v1/agents'))
      .then((list) => setAgents(list.items))
      .catch(setError);
  }, []);
  const chosen = agents?.find((agent) => agent.id === agentId);

  const save = async () => {
    try {
      const saved = await ok(api.PATCH('/api/v1/conversations/{id}', { params: { path: { id: conversation.id } }, body: { agentId, settings: { knowledgeBaseIds: selected, retrieval, debug } } }));
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
        <label htmlFor="settings-agent">{t('settings.agent')}</label>
        <select id="settings-agent" value={agentId} onChange={(e) => setAgentId(e.target.value)} aria-describedby="settings-agent-about">
          {/* the conversation's agent, shown before the list has loaded */}
          {!agents && <option value={agentId}>{agentId === 'default' ? t('settings.agentDefault') : agentId}</option>}
          {agents?.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.id === 'default' ? t('settings.agentDefault') : agent.name}
            </option>
          ))}
        </select>
        <p id="settings-agent-about" className="muted">
          {chosen && chosen.id !== 'default' ? chosen.description : t('settings.agentDefaultAbout')}
        </p>
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
