import { useCallback, useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import { ApiError } from '../api/errors';
import { session, UNAUTHORIZED_EVENT } from '../api/session';
import { SignIn } from '../auth/SignIn';
import { ChatPage } from '../chat/ChatPage';
import { ConversationList } from '../chat/ConversationList';
import { useI18n } from '../i18n/i18n';
import { KnowledgePage } from '../kb/KnowledgePage';
import { LanguageSwitch } from './LanguageSwitch';
import { navigate, paths, useRoute } from './router';

type Access = 'checking' | 'granted' | 'needs-key' | 'offline';

/** The shell: sign-in when the server asks for a key, then the conversation list beside the page. */
export function App() {
  const { t, language } = useI18n();
  const route = useRoute();
  const [access, setAccess] = useState<Access>('checking');
  const [menuOpen, setMenuOpen] = useState(false);
  const [listVersion, setListVersion] = useState(0);
  session.setLanguage(language);

  const check = useCallback(async () => {
    setAccess('checking');
    try {
      await ok(api.GET('/api/v1/conversations', { params: { query: { limit: 1 } } }));
      setAccess('granted');
    } catch (error) {
      setAccess(error instanceof ApiError && error.status === 401 ? 'needs-key' : 'offline');
    }
  }, []);

  useEffect(() => {
    void check();
    const onUnauthorized = () => setAccess('needs-key');
    window.addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
  }, [check]);

  useEffect(() => setMenuOpen(false), [route]);

  if (access === 'checking') return <p className="splash">{t('common.loading')}</p>;
  if (access === 'needs-key') return <SignIn onSignedIn={() => setAccess('granted')} />;
  if (access === 'offline')
    return (
      <main className="splash" role="alert">
        <p>{t('common.offline')}</p>
        <button onClick={() => void check()}>{t('common.retry')}</button>
      </main>
    );

  const refreshList = () => setListVersion((v) => v + 1);
  return (
    <div className={`shell ${menuOpen ? 'menu-open' : ''}`}>
      <a className="skip-link" href="#main">
        {t('app.skipToChat')}
      </a>
      <aside className="sidebar" aria-label={t('nav.chats')}>
        <header className="sidebar-head">
          <span className="brand">{t('app.title')}</span>
          <button className="icon only-narrow" aria-label={t('nav.closeMenu')} onClick={() => setMenuOpen(false)}>
            ×
          </button>
        </header>
        <nav className="sidebar-nav">
          <button className="primary" onClick={() => navigate(paths.chat(null))}>
            + {t('conv.new')}
          </button>
          <a href={paths.knowledge()} aria-current={route.page === 'knowledge' ? 'page' : undefined} onClick={(e) => (e.preventDefault(), navigate(paths.knowledge()))}>
            {t('nav.knowledge')}
          </a>
        </nav>
        <ConversationList activeId={route.page === 'chat' ? route.conversationId : null} version={listVersion} />
        <footer className="sidebar-foot">
          <LanguageSwitch />
          {session.apiKey() && (
            <button
              className="link"
              onClick={() => {
                session.setApiKey(null);
                setAccess('needs-key');
              }}
            >
              {t('auth.signOut')}
            </button>
          )}
        </footer>
      </aside>
      <div className="main-column">
        <header className="topbar only-narrow">
          <button className="icon" aria-label={t('nav.openMenu')} aria-expanded={menuOpen} onClick={() => setMenuOpen(true)}>
            ☰
          </button>
          <span className="brand">{t('app.title')}</span>
        </header>
        <main id="main" tabIndex={-1}>
          {route.page === 'chat' ? (
            <ChatPage key={route.conversationId ?? 'new'} conversationId={route.conversationId} onConversationsChanged={refreshList} />
          ) : (
            <KnowledgePage knowledgeBaseId={route.knowledgeBaseId} />
          )}
        </main>
      </div>
    </div>
  );
}
