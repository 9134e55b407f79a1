import { useRef, useState, type KeyboardEvent } from 'react';
import type { ModelRef, RunMode } from '../api/types';
import { useI18n } from '../i18n/i18n';
import { AttachButton, ChosenFiles } from './ComposerFiles';
import type { ModelOption } from './useModels';

const MODES: RunMode[] = ['react', 'plan', 'direct'];
const refKey = (ref: ModelRef | null) => (ref ? `${ref.provider}:${ref.modelId}` : '');

interface ComposerProps {
  busy: boolean;
  running: boolean;
  models: ModelOption[];
  model: ModelRef | null;
  onModelChange(model: ModelRef | null): void;
  /** rejects when the message was not sent: the composer gives its text and files back */
  onSend(text: string, mode: RunMode, files: File[]): Promise<void>;
  onCancel(): void;
}

/** The message box: Enter sends, Shift+Enter adds a line; files, mode and model beside it; Stop while a run goes on. */
export function Composer({ busy, running, models, model, onModelChange, onSend, onCancel }: ComposerProps) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const [mode, setMode] = useState<RunMode>('react');
  const [files, setFiles] = useState<File[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);
  const canSend = Boolean(text.trim()) && !busy && !running;

  const submit = async () => {
    if (!canSend) return;
    const sent = text;
    const attached = files;
    setText('');
    setFiles([]);
    await onSend(sent, mode, attached).catch(() => {
      setText(sent);
      setFiles(attached);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  };

  const current = refKey(model);
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor="composer-text" className="visually-hidden">
        {t('composer.placeholder')}
      </label>
      <textarea ref={box} id="composer-text" value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onKeyDown} placeholder={t('composer.placeholder')} rows={2} />
      <ChosenFiles files={files} onChange={setFiles} onRemoved={() => box.current?.focus()} />
      <div className="composer-bar">
        <AttachButton files={files} disabled={busy} onChange={setFiles} />
        <label>
          <span className="visually-hidden">{t('composer.mode')}</span>
          <select value={mode} onChange={(e) => setMode(e.target.value as RunMode)} aria-label={t('composer.mode')} data-testid="mode">
            {MODES.map((m) => (
              <option key={m} value={m}>
                {t(`mode.${m}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="visually-hidden">{t('composer.model')}</span>
          <select
            value={current}
            aria-label={t('composer.model')}
            data-testid="model"
            onChange={(e) => {
              const picked = models.find((m) => refKey(m) === e.target.value);
              onModelChange(picked ? { provider: picked.provider, modelId: picked.modelId } : null);
            }}
          >
            <option value="">{t('composer.modelDefault')}</option>
            {models.map((m) => (
              <option key={refKey(m)} value={refKey(m)}>
                {m.label}
              </option>
            ))}
            {current && !models.some((m) => refKey(m) === current) && <option value={current}>{current}</option>}
          </select>
        </label>
        <span className="spacer" />
        {running ? (
          <button type="button" className="danger" onClick={onCancel}>
            {t('composer.cancel')}
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!canSend}>
            {t('composer.send')}
          </button>
        )}
      </div>
    </form>
  );
}
