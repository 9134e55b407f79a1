import { useEffect, useState } from 'react';

export type Route = { page: 'chat'; conversationId: string | null } | { page: 'knowledge'; knowledgeBaseId: string | null };

/** The page's paths: `/`, `/c/<conversation>`, `/kb`, `/kb/<knowledge base>` (the server answers each with the app). */
export function parseRoute(pathname: string): Route {
  const [first, second] = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (first === 'kb') return { page: 'knowledge', knowledgeBaseId: second ?? null };
  if (first === 'c' && second) return { page: 'chat', conversationId: second };
  return { page: 'chat', conversationId: null };
}

export const paths = {
  chat: (conversationId?: string | null) => (conversationId ? `/c/${encodeURIComponent(conversationId)}` : '/'),
  knowledge: (knowledgeBaseId?: string | null) => (knowledgeBaseId ? `/kb/${encodeURIComponent(knowledgeBaseId)}` : '/kb'),
};

const NAVIGATE = 'helix:navigate';

export function navigate(path: string, replace = false): void {
  if (path === location.pathname) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAVIGATE));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE, update);
    };
  }, []);
  return route;
}
