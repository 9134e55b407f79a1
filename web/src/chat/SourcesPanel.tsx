import { useEffect, useRef } from 'react';
import { useI18n } from '../i18n/i18n';
import type { Citation } from '../run/run-state';
import { SidePanel } from '../ui/SidePanel';

/** The passages an answer cites: `[n]` in the text is `items[n-1]` here. */
export function SourcesPanel({ items, focus, onClose }: { items: Citation[]; focus: number | null; onClose(): void }) {
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
    </SidePanel>
  );
}
