import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, done, ok } from '../api/client';
import type { Job, KbDocument, KnowledgeBase, SearchHit } from '../api/types';
import { useI18n } from '../i18n/i18n';
import { ErrorNote } from '../ui/ErrorNote';
import { uploadDocument, waitForJob } from './upload';

interface Upload {
  name: string;
  job: Job | null;
  error: string | null;
}

/** One knowledge base: upload files (with each job's progress), its documents, a test search. */
export function KnowledgeBaseView({ knowledgeBase, onChanged, onDelete }: { knowledgeBase: KnowledgeBase; onChanged(): void; onDelete(): void }) {
  const { t } = useI18n();
  const [documents, setDocuments] = useState<KbDocument[]>([]);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<{ items: SearchHit[]; degraded: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  // polling of upload jobs stops when the view goes away
  const abort = useRef<AbortController | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    abort.current = controller;
    return () => controller.abort();
  }, []);

  const loadDocuments = useCallback(() => {
    ok(api.GET('/api/v1/knowledge-bases/{id}/documents', { params: { path: { id: knowledgeBase.id }, query: { limit: 100 } } }))
      .then((page) => setDocuments(page.items))
      .catch(setError);
  }, [knowledgeBase.id]);
  useEffect(loadDocuments, [loadDocuments]);

  const upload = (files: FileList) => {
    const start = uploads.length;
    const list = [...files];
    setUploads((current) => [...current, ...list.map((file) => ({ name: file.name, job: null, error: null }))]);
    const update = (index: number, change: Partial<Upload>) => setUploads((current) => current.map((u, i) => (i === index ? { ...u, ...change } : u)));
    list.forEach(async (file, offset) => {
      const index = start + offset;
      try {
        const job = await uploadDocument(knowledgeBase.id, file);
        update(index, { job });
        const finished = await waitForJob(job.id, (progress) => update(index, { job: progress }), abort.current?.signal);
        if (finished.error) update(index, { error: finished.error });
        loadDocuments();
        onChanged();
      } catch (failure) {
        update(index, { error: failure instanceof Error ? failure.message : String(failure) });
      }
    });
  };

  const removeDocument = async (document: KbDocument) => {
    try {
      await done(api.DELETE('/api/v1/knowledge-bases/{id}/documents/{docId}', { params: { path: { id: knowledgeBase.id, docId: document.id } } }));
      loadDocuments();
      onChanged();
    } catch (failure) {
      setError(failure);
    }
  };

  const search = async (event: FormEvent) => {
    event.preventDefault();
    try {
      setHits(await ok(api.POST('/api/v1/knowledge-bases/{id}/search', { params: { path: { id: knowledgeBase.id } }, body: { query: query.trim(), k: 5 } })));
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section className="kb-view" aria-labelledby="kb-view-title">
      <header className="kb-view-head">
        <h2 id="kb-view-title">{knowledgeBase.name}</h2>
        <button className="danger" onClick={onDelete}>
          {t('kb.delete')}
        </button>
      </header>
      {knowledgeBase.description && <p className="muted">{knowledgeBase.description}</p>}
      <label className="upload">
        <span className="button">{t('kb.upload')}</span>
        <input type="file" multiple accept=".pdf,.html,.htm,.md,.markdown,.txt,text/plain,text/markdown,text/html,application/pdf" onChange={(e) => e.target.files && upload(e.target.files)} data-testid="kb-upload" />
        <span className="muted small">{t('kb.uploadHint')}</span>
      </label>
      {uploads.length > 0 && (
        <ul className="uploads">
          {uploads.map((u, i) => (
            <li key={i}>
              <span>{u.name}</span>
              <progress max={1} value={u.job?.progress ?? 0} aria-label={u.name} />
              <span className={`badge ${u.error ? 'failed' : u.job?.state ?? ''}`}>{u.error ?? (u.job ? t(`kb.job.${u.job.state as 'queued' | 'running' | 'succeeded' | 'failed'}`) : t('kb.job.queued'))}</span>
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={error} />
      <h3>{t('kb.documents')}</h3>
      {!documents.length && <p className="muted">{t('kb.noDocuments')}</p>}
      <ul className="documents">
        {documents.map((document) => (
          <li key={document.id}>
            <span>{document.title}</span>
            <span className="muted small">
              {document.status} · {document.chunkCount}
            </span>
            <button className="link small danger" onClick={() => void removeDocument(document)} aria-label={`${t('kb.deleteDocument')}: ${document.title}`}>
              {t('conv.delete')}
            </button>
          </li>
        ))}
      </ul>
      <h3>{t('kb.search')}</h3>
      <form onSubmit={search} className="kb-search">
        <label htmlFor="kb-query" className="visually-hidden">
          {t('kb.search')}
        </label>
        <input id="kb-query" value={query} onChange={(e) => setQuery(e.target.value)} required />
        <button type="submit" disabled={!query.trim()}>
          {t('kb.searchButton')}
        </button>
      </form>
      {hits && (
        <>
          {hits.degraded && <p className="muted small">{t('kb.degraded')}</p>}
          {!hits.items.length && <p className="muted">{t('kb.noResults')}</p>}
          <ol className="hits">
            {hits.items.map((hit) => (
              <li key={hit.id}>
                <strong>{hit.title}</strong> <span className="muted small">{hit.score.toFixed(3)}</span>
                <p>{hit.snippet}</p>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
