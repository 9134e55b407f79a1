import { useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import type { Agent, Conversation, KnowledgeBase, RetrievalMode, SourceMode } from '../api/types';
import { useI18n } from '../i18n/i18n';
import { Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/ErrorNote';

const SOURCE_MODES: SourceMode[] = ['off', 'prefetch', 'search'];
/** the mode `retrieval` gives a bare id of `knowledgeBaseIds` */
const BARE_ID_MODE: Record<RetrievalMode, SourceMode> = { classic: 'prefetch', agentic: 'search', off: 'off' };

/** Each knowledge base's mode in the conversation's settings: its own entry, else what `retrieval` gives a bare id. */
function sourceModes(settings: Conversation['settings']): Record<string, SourceMode> {
  const modes: Record<string, SourceMode> = {};
  const bare = BARE_ID_MODE[settings.retrieval ?? 'off'];
  for (const id of settings.knowledgeBaseIds ?? []) modes[id] = bare;
  for (const { id, mode } of settings.knowledgeBases ?? []) modes[id] = mode;
  return modes;
}

/**
 * Per conversation: its agent, each knowledge base's mode (searched before the answer, searched
 * by the model, or not used), the query rewrite, debug events.
 */
export function ConversationSettingsDialog({ conversation, onClose, onSaved }: { conversation: Conversation; onClose(): void; onSaved(c: Conversation): void }) {
  const { t } = useI18n();
  const [bases, setBases] = useState<KnowledgeBase[] | null>(null);
  const [modes, setModes] = useState<Record<string, SourceMode>>(() => sourceModes(conversation.settings));
  const [queryRewrite, setQueryRewrite] = useState(conversation.settings.queryRewrite ?? false);
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
      // every base with its own mode: bare ids (whose mode `retrieval` gave) are not kept
      const knowledgeBases = Object.entries(modes).filter(([, mode]) => mode !== 'off').map(([id, mode]) => ({ id, mode }));
      const settings = { knowledgeBaseIds: [], knowledgeBases, queryRewrite, debug };
      const saved = await ok(api.PATCH('/api/v1/conversations/{id}', { params: { path: { id: conversation.id } }, body: { agentId, settings } }));
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
            <div key={kb.id} className="source-mode">
              <label htmlFor={`kb-mode-${kb.id}`}>{kb.name}</label>
              <select id={`kb-mode-${kb.id}`} value={modes[kb.id] ?? 'off'} onChange={(e) => setModes((m) => ({ ...m, [kb.id]: e.target.value as SourceMode }))}>
                {SOURCE_MODES.map((mode) => (
                  <option key={mode} value={mode}>
                    {t(`settings.source.${mode}`)}
                  </option>
                ))}
              </select>
            </div>
          ))}
          <label className="check">
            <input type="checkbox" checked={queryRewrite} onChange={(e) => setQueryRewrite(e.target.checked)} />
            {t('settings.queryRewrite')}
          </label>
        </fieldset>
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
