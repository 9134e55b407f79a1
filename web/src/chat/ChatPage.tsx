import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ok } from '../api/client';
import { ApiError } from '../api/errors';
import { isTerminal, type ClientRunEvent } from '../api/events';
import type { Conversation, Message, ModelRef, RunMode } from '../api/types';
import { navigate, paths } from '../app/router';
import { DebugPanel } from '../debug/DebugPanel';
import { useI18n } from '../i18n/i18n';
import type { Citation, KnowledgeGraph } from '../run/run-state';
import { useRuns } from '../run/useRuns';
import { ErrorNote } from '../ui/ErrorNote';
import { toAttachment } from './attachments';
import { Composer } from './Composer';
import { FilesPanel } from './FilesPanel';
import { ConversationSettingsDialog } from './ConversationSettings';
import { MessageList } from './MessageList';
import { SourcesPanel } from './SourcesPanel';
import { useModels } from './useModels';

const PAGE = 100;

/**
 * The run a page started in a conversation it had just created: the conversation's own page
 * (mounted by the navigation) follows it live from its log, however quickly it finished.
 */
const startedRuns = new Map<string, { id: string; streamToken: string }>();

/** One conversation: its history, the runs followed live, the composer and the side panels. */
export function ChatPage({ conversationId, onConversationsChanged }: { conversationId: string | null; onConversationsChanged(): void }) {
  const { t } = useI18n();
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sources, setSources] = useState<{ items: Citation[]; focus: number | null; graph?: KnowledgeGraph } | null>(null);
  const [panel, setPanel] = useState<'debug' | 'settings' | 'files' | null>(null);
  const [sending, setSending] = useState(false);
  /** the model picked before the conversation exists: it is created with it */
  const [pendingModel, setPendingModel] = useState<ModelRef | null>(null);
  const models = useModels();
  const liveRunId = useRef<string | null>(null);
  /** a conversation created for a first message the server then refused (a file, say): the next try reuses it */
  const created = useRef<string | null>(null);

  const onRunEvent = useCallback(
    (_runId: string, event: ClientRunEvent) => {
      if (event.type === 'title') {
        setConversation((c) => (c ? { ...c, title: event.data.title } : c));
        onConversationsChanged();
      }
    },
    [onConversationsChanged],
  );
  const { runs, follow, settle, connection } = useRuns(onRunEvent);

  const loadMessages = useCallback(
    async (after: number) => {
      if (!conversationId) return;
      const page = await ok(api.GET('/api/v1/conversations/{id}/messages', { params: { path: { id: conversationId }, query: { after, limit: PAGE } } }));
      setMessages((current) => (after ? [...current, ...page.items] : page.items));
      setHasMore(page.items.length === PAGE);
    },
    [conversationId],
  );

  useEffect(() => {
    if (!conversationId) return;
    let cancelled = false;
    (async () => {
      try {
        const found = await ok(api.GET('/api/v1/conversations/{id}', { params: { path: { id: conversationId } } }));
        // the run first: when it has finished, the messages read next hold all it wrote
        const latest = await api.GET('/api/v1/conversations/{id}/runs/latest', { params: { path: { id: conversationId } } });
        if (cancelled) return;
        setConversation(found);
        await loadMessages(0);
        // the run this page just started, or one still going when the page opened: rebuild it
        // from its log, then follow it live
        const started = startedRuns.get(conversationId);
        startedRuns.delete(conversationId);
        const live = started ?? (latest.data && !isTerminal(latest.data.state) ? latest.data : undefined);
        if (!cancelled && live) {
          liveRunId.current = live.id;
          follow(live.id, live.streamToken);
        }
      } catch (failure) {
        if (!cancelled) setError(failure);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [conversationId, follow, loadMessages]);

  const live = liveRunId.current ? runs.get(liveRunId.current) : undefined;
  const running = Boolean(live && !live.finalState);

  const send = async (text: string, mode: RunMode, files: File[]) => {
    setSending(true);
    setError(null);
    try {
      // read before a conversation is created: a file the browser cannot read creates nothing
      const attachments = await Promise.all(files.map(toAttachment));
      let id = conversationId ?? created.current;
      if (!id) {
        id = (await ok(api.POST('/api/v1/conversations', { body: pendingModel ? { model: pendingModel } : {} }))).id;
        created.current = id;
        onConversationsChanged();
      }
      const posted = await ok(api.POST('/api/v1/conversations/{id}/messages', { params: { path: { id } }, body: { text, mode, ...(attachments.length ? { attachments } : {}) } }));
      if (typeof posted === 'string') throw new ApiError(500, 'unexpected event stream');
      if (id !== conversationId) {
        startedRuns.set(id, posted.run);
        navigate(paths.chat(id));
        return;
      }
      setMessages((current) => [...current, posted.message]);
      liveRunId.current = posted.run.id;
      follow(posted.run.id, posted.run.streamToken);
    } catch (failure) {
      setError(failure);
      throw failure; // the composer gives the text back
    } finally {
      setSending(false);
    }
  };

  const cancel = async () => {
    if (!liveRunId.current) return;
    try {
      await ok(api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: liveRunId.current } } }));
    } catch (failure) {
      // a run that finished meanwhile cannot be cancelled: its stream says how it ended
      if (!(failure instanceof ApiError && failure.status === 409)) setError(failure);
    }
  };

  const changeModel = async (model: ModelRef | null) => {
    if (!conversation) return;
    try {
      setConversation(await ok(api.PATCH('/api/v1/conversations/{id}', { params: { path: { id: conversation.id } }, body: { model } })));
    } catch (failure) {
      setError(failure);
    }
  };

  const fork = async (fromMessageId: string) => {
    if (!conversationId) return;
    try {
      const copy = await ok(api.POST('/api/v1/conversations/{id}/fork', { params: { path: { id: conversationId } }, body: { fromMessageId } }));
      onConversationsChanged();
      navigate(paths.chat(copy.id));
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <div className={`chat ${sources || panel === 'debug' || panel === 'files' ? 'with-panel' : ''}`}>
      <header className="chat-head">
        <h1>{conversation?.title ?? t('conv.new')}</h1>
        <div className="chat-tools">
          {conversation && (
            <button onClick={() => setPanel(panel === 'settings' ? null : 'settings')} aria-haspopup="dialog">
              {t('conv.settings')}
            </button>
          )}
          {conversation && (
            <button onClick={() => setPanel(panel === 'files' ? null : 'files')} aria-pressed={panel === 'files'} aria-label={t('files.open')}>
              {t('files.title')}
            </button>
          )}
          <button onClick={() => setPanel(panel === 'debug' ? null : 'debug')} aria-pressed={panel === 'debug'} aria-label={panel === 'debug' ? t('debug.close') : t('debug.open')}>
            {t('debug.title')}
          </button>
        </div>
      </header>
      <div className="chat-body">
        <section className="timeline" aria-live="polite" aria-busy={running}>
          {!messages.length && !running && (
            <div className="welcome">
              <h2>{t('chat.welcome')}</h2>
              <p className="muted">{t('chat.welcomeHint')}</p>
            </div>
          )}
          <MessageList messages={messages} runs={runs} onShowSources={(items, focus, graph) => setSources({ items, focus, graph })} onFork={fork} onSettle={settle} />
          {hasMore && (
            <button className="link" onClick={() => void loadMessages(messages.at(-1)?.seq ?? 0).catch(setError)}>
              {t('conv.more')}
            </button>
          )}
          {connection === 'reconnecting' && running && <p className="muted" role="status">{t('run.reconnecting')}</p>}
          <ErrorNote error={error} />
        </section>
        {sources && <SourcesPanel items={sources.items} focus={sources.focus} graph={sources.graph} onClose={() => setSources(null)} />}
        {panel === 'files' && conversationId && (
          <FilesPanel conversationId={conversationId} revision={`${live?.runId ?? ''}:${live?.finalState ?? ''}`} onClose={() => setPanel(null)} />
        )}
        {panel === 'debug' && <DebugPanel conversationId={conversationId} live={live} onClose={() => setPanel(null)} />}
      </div>
      <Composer busy={sending} running={running} onSend={send} onCancel={cancel} models={models} model={conversation ? conversation.model : pendingModel} onModelChange={conversation ? changeModel : setPendingModel} />
      {panel === 'settings' && conversation && (
        <ConversationSettingsDialog conversation={conversation} onClose={() => setPanel(null)} onSaved={(saved) => setConversation(saved)} />
      )}
    </div>
  );
}
