import { useEffect, useRef } from 'react';
import { useI18n } from '../i18n/i18n';
import type { Citation, KnowledgeGraph } from '../run/run-state';
import { SidePanel } from '../ui/SidePanel';

/**
 * The passages an answer cites (`[n]` in the text is `items[n-1]` here) and, when the retrieval
 * found one, the knowledge graph around the entities the question named.
 */
export function SourcesPanel({ items, focus, graph, onClose }: { items: Citation[]; focus: number | null; graph?: KnowledgeGraph; onClose(): void }) {
  const { t } = useI18n();
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (focus === null) return;
    const item = list.current?.querySelector<HTMLElement>(`#source-${focus}`);
    item?.scrollIntoView({ block: 'nearest' });
    item?.focus();
  }, [focus, items]);
  return (
    <SidePanel className="sources-panel" title={t('sources.title')} closeLabel={t('settings.close')} onClose={onClose}>
      {!items.length && <p className="muted">{t('sources.empty')}</p>}
      <ol ref={list}>
        {items.map((item, i) => (
          <li key={item.id} id={`source-${i + 1}`} tabIndex={-1} className={focus === i + 1 ? 'focused' : undefined}>
            <strong>
              [{i + 1}] {item.title}
            </strong>
            <span className="muted small"> · {item.source}</span>
            <p>{item.snippet}</p>
          </li>
        ))}
      </ol>
      {graph && graph.relations.length > 0 && <GraphRelations graph={graph} items={items} />}
    </SidePanel>
  );
}

/** Each relation as `A — label → B`, with the numbers of the cited passages that state it. */
function GraphRelations({ graph, items }: { graph: KnowledgeGraph; items: Citation[] }) {
  const { t } = useI18n();
  const names = new Map(graph.entities.map((entity) => [entity.id, entity.name]));
  const numbers = new Map(items.map((item, i) => [item.id, i + 1]));
  return (
    <section className="graph-relations" aria-label={t('sources.graph')}>
      <h3>{t('sources.graph')}</h3>
      <ul>
        {graph.relations.map((relation) => {
          const cited = relation.chunkIds.flatMap((id) => (numbers.has(id) ? [`[${numbers.get(id)}]`] : []));
          return (
            <li key={`${relation.source}:${relation.label}:${relation.target}`}>
              <strong>{names.get(relation.source) ?? relation.source}</strong> — {relation.label} → <strong>{names.get(relation.target) ?? relation.target}</strong>
              {cited.length > 0 && <span className="muted small"> {cited.join(' ')}</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
