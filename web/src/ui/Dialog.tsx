import { useEffect, useRef, type ReactNode } from 'react';

/** A modal on the native <dialog>: focus stays inside, Escape closes it, the page behind is inert. */
export function Dialog({ title, onClose, children, className }: { title: string; onClose(): void; children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`}
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function ConfirmDialog({ title, text, confirm, onConfirm, onClose, cancel }: { title: string; text: string; confirm: string; cancel: string; onConfirm(): void; onClose(): void }) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{text}</p>
      <div className="dialog-actions">
        <button onClick={onClose}>{cancel}</button>
        <button className="danger" onClick={onConfirm} autoFocus>
          {confirm}
        </button>
      </div>
    </Dialog>
  );
}
