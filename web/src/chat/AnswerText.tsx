import { useState, type MouseEvent } from 'react';
import { useI18n } from '../i18n/i18n';
import { Markdown } from '../markdown/Markdown';
import type { Citation, KnowledgeGraph, ShowSources } from '../run/run-state';

interface AnswerTextProps {
  text: string;
  reasoning: string;
  sources: Citation[];
  /** the knowledge graph the run's retrieval found (live runs only: it is not stored with the message) */
  graph?: KnowledgeGraph;
  onShowSources: ShowSources;
  streaming?: boolean;
}

/** An answer's Markdown, its reasoning folded away, `[n]` links and a button to its sources. */
export function AnswerText({ text, reasoning, sources, graph, onShowSources, streaming = false }: AnswerTextProps) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const link = (event.target as HTMLElement).closest<HTMLAnchorElement>('a[data-citation]');
    if (!link) return;
    event.preventDefault();
    onShowSources(sources, Number(link.dataset.citation), graph);
  };
  const copy = async () => {
    await navigator.clipboard?.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <div className="answer" onClick={onClick}>
      {reasoning && (
        <details className="reasoning">
          <summary>{t('chat.reasoning')}</summary>
          <p>{reasoning}</p>
        </details>
      )}
      {text && <Markdown text={text} citations={sources.length} className={streaming ? 'streaming' : undefined} />}
      {!streaming && text && (
        <div className="answer-actions">
          {(sources.length > 0 || (graph?.relations.length ?? 0) > 0) && (
            <button className="link small" onClick={() => onShowSources(sources, null, graph)}>
              {t('sources.title')} ({sources.length})
            </button>
          )}
          <button className="link small" onClick={() => void copy()}>
            {copied ? t('chat.copied') : t('chat.copy')}
          </button>
        </div>
      )}
    </div>
  );
}
