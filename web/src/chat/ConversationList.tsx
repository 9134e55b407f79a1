import { useCallback, useEffect, useState } from 'react';
import { api, done, ok } from '../api/client';
import type { Conversation } from '../api/types';
import { navigate, paths } from '../app/router';
import { useI18n } from '../i18n/i18n';
import { ConfirmDialog, Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/ErrorNote';

const PAGE = 30;

/** The workspace's conversations, newest first, with rename, fork and delete. */
export function ConversationList({ activeId, version }: { activeId: string | null; version: number }) {
  const { t } = useI18n();
  const [items, setItems] = useState<Conversation[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loaded, setLoaded] = useState(false);
  const [renaming, setRenaming] = useState<Conversation | null>(null);
  const [deleting, setDeleting] = useState<Conversation | null>(null);

  const load = useCallback(async (after: string | null) => {
    try {
      const page = await ok(api.GET('/api/v1/conversations', { params: { query: { limit: PAGE, ...(after ? { cursor: after } : {}) } } }));
      setItems((current) => (after ? [...current, ...page.items] : page.items));
      setCursor(page.nextCursor);
      setError(null);
    } catch (failure) {
      setError(failure);
    } finally {
      setLoaded(true);
    }
  }, []);

  useEffect(() => void load(null), [load, version]);

  const fork = async (conversation: Conversation) => {
    try {
      const copy = await ok(api.POST('/api/v1/conversations/{id}/fork', { params: { path: { id: conversation.id } }, body: {} }));
      await load(null);
      navigate(paths.chat(copy.id));
    } catch (failure) {
      setError(failure);
    }
  };

  const remove = async (conversation: Conversation) => {
    setDeleting(null);
    try {
      await done(api.DELETE('/api/v1/conversations/{id}', { params: { path: { id: conversation.id } } }));
      setItems((current) => current.filter((c) => c.id !== conversation.id));
      if (activeId === conversation.id) navigate(paths.chat(null), true);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <div className="conversation-list">
      <ErrorNote error={error} onRetry={() => void load(null)} />
      {loaded && !items.length && !error && <p className="muted">{t('conv.empty')}</p>}
      <ul>
        {items.map((conversation) => (
          <li key={conversation.id} className={conversation.id === activeId ? 'active' : undefined}>
            <a href={paths.chat(conversation.id)} aria-current={conversation.id === activeId ? 'page' : undefined} onClick={(e) => (e.preventDefault(), navigate(paths.chat(conversation.id)))}>
              {conversation.title}
            </a>
            <details className="menu">
              <summary aria-label={t('conv.actions', { title: conversation.title })}>⋯</summary>
              <div className="menu-items">
                <button onClick={() => setRenaming(conversation)}>{t('conv.rename')}</button>
                <button onClick={() => void fork(conversation)}>{t('conv.fork')}</button>
                <button className="danger" onClick={() => setDeleting(conversation)}>
                  {t('conv.delete')}
                </button>
              </div>
            </details>
          </li>
        ))}
      </ul>
      {cursor && (
        <button className="link" onClick={() => void load(cursor)}>
          {t('conv.more')}
        </button>
      )}
      {renaming && (
        <RenameDialog
          conversation={renaming}
          onClose={() => setRenaming(null)}
          onRenamed={(renamed) => {
            setItems((current) => current.map((c) => (c.id === renamed.id ? renamed : c)));
            setRenaming(null);
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={t('conv.delete')}
          text={t('conv.deleteConfirm', { title: deleting.title })}
          confirm={t('conv.delete')}
          cancel={t('common.cancel')}
          onConfirm={() => void remove(deleting)}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}

function RenameDialog({ conversation, onClose, onRenamed }: { conversation: Conversation; onClose(): void; onRenamed(c: Conversation): void }) {
  const { t } = useI18n();
  const [title, setTitle] = useState(conversation.title);
  const [error, setError] = useState<unknown>(null);
  const save = async () => {
    try {
      onRenamed(await ok(api.PATCH('/api/v1/conversations/{id}', { params: { path: { id: conversation.id } }, body: { title: title.trim() } })));
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <Dialog title={t('conv.rename')} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label htmlFor="rename-title">{t('conv.renamePrompt')}</label>
        <input id="rename-title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={500} required autoFocus />
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={!title.trim()}>
            {t('settings.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
