import { useMemo } from 'react';
import { renderMarkdown } from './markdown';

/** Sanitised Markdown (see markdown.ts); `[n]` citations become links when `citations` ≥ n. */
export function Markdown({ text, citations = 0, className }: { text: string; citations?: number; className?: string }) {
  const html = useMemo(() => renderMarkdown(text, citations), [text, citations]);
  return <div className={`markdown ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
