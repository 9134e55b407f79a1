import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, done, ok } from '../api/client';
import type { KnowledgeBase } from '../api/types';
import { navigate, paths } from '../app/router';
import { useI18n } from '../i18n/i18n';
import { ErrorNote } from '../ui/ErrorNote';
import { KnowledgeBaseView } from './KnowledgeBaseView';

/** How a knowledge base indexes words (docs/RAG.md, "Language"); fixed at creation. */
const LANGUAGES = ['auto', 'english', 'chinese', 'simple'] as const;
type Language = (typeof LANGUAGES)[number];

/** The workspace's knowledge bases: create one, open one to upload, list and search documents. */
export function KnowledgePage({ knowledgeBaseId }: { knowledgeBaseId: string | null }) {
  const { t } = useI18n();
  const [bases, setBases] = useState<KnowledgeBase[] | null>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [language, setLanguage] = useState<Language>('auto');
  const [graph, setGraph] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(() => {
    ok(api.GET('/api/v1/knowledge-bases'))
      .then((list) => setBases(list.items))
      .catch(setError);
  }, []);
  useEffect(load, [load]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const created = await ok(api.POST('/api/v1/knowledge-bases', { body: { name: name.trim(), language, graph, ...(description.trim() ? { description: description.trim() } : {}) } }));
      setName('');
      setDescription('');
      setGraph(false);
      load();
      navigate(paths.knowledge(created.id));
    } catch (failure) {
      setError(failure);
    }
  };

  const remove = async (kb: KnowledgeBase) => {
    if (!window.confirm(t('kb.deleteConfirm', { name: kb.name }))) return;
    try {
      await done(api.DELETE('/api/v1/knowledge-bases/{id}', { params: { path: { id: kb.id } } }));
      load();
      navigate(paths.knowledge(null), true);
    } catch (failure) {
      setError(failure);
    }
  };

  const selected = bases?.find((kb) => kb.id === knowledgeBaseId) ?? null;
  return (
    <div className="knowledge">
      <header className="chat-head">
        <h1>{t('kb.title')}</h1>
      </header>
      <div className="knowledge-body">
        <section className="kb-list" aria-label={t('kb.title')}>
          <form onSubmit={create} className="kb-create">
            <label htmlFor="kb-name">{t('kb.name')}</label>
            <input id="kb-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required />
            <label htmlFor="kb-description">{t('kb.description')}</label>
            <input id="kb-description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />
            <label htmlFor="kb-language">{t('kb.language')}</label>
            <select id="kb-language" value={language} onChange={(e) => setLanguage(e.target.value as Language)}>
              {LANGUAGES.map((value) => (
                <option key={value} value={value}>
                  {t(`kb.language.${value}`)}
                </option>
              ))}
            </select>
            <label className="kb-graph">
              <input type="checkbox" checked={graph} onChange={(e) => setGraph(e.target.checked)} /> {t('kb.graph')}
            </label>
            <button type="submit" className="primary" disabled={!name.trim()}>
              {t('kb.create')}
            </button>
          </form>
          <ErrorNote error={error} onRetry={load} />
          {bases?.length === 0 && <p className="muted">{t('kb.empty')}</p>}
          <ul>
            {bases?.map((kb) => (
              <li key={kb.id} className={kb.id === knowledgeBaseId ? 'active' : undefined}>
                <a href={paths.knowledge(kb.id)} aria-current={kb.id === knowledgeBaseId ? 'page' : undefined} onClick={(e) => (e.preventDefault(), navigate(paths.knowledge(kb.id)))}>
                  {kb.name} <span className="muted small">({kb.documentCount})</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
        {selected && <KnowledgeBaseView key={selected.id} knowledgeBase={selected} onChanged={load} onDelete={() => void remove(selected)} />}
      </div>
    </div>
  );
}
