import type { ReactNode } from 'react';

/** A panel beside the conversation (a full-screen sheet on narrow screens): a title, a close button, its content. */
export function SidePanel({ className, title, closeLabel, onClose, children }: { className: string; title: string; closeLabel: string; onClose(): void; children: ReactNode }) {
  return (
    <aside className={`side-panel ${className}`} aria-label={title}>
      <header>
        <h2>{title}</h2>
        <button className="icon" onClick={onClose} aria-label={closeLabel}>
          ×
        </button>
      </header>
      {children}
    </aside>
  );
}
