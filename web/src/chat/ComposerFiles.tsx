import { useI18n } from '../i18n/i18n';
import { ACCEPTED_FILES, formatSize } from './attachments';

/**
 * The composer's attach button: a file input inside its label, so the input's accessible name is
 * the label's text while the label looks like a button and shows the input's focus.
 */
export function AttachButton({ files, disabled, onChange }: { files: File[]; disabled: boolean; onChange(files: File[]): void }) {
  const { t } = useI18n();
  return (
    <label className={`button attach ${disabled ? 'disabled' : ''}`} title={t('composer.attachHint')}>
      {t('composer.attach')}
      <input
        type="file"
        multiple
        accept={ACCEPTED_FILES}
        className="visually-hidden"
        disabled={disabled}
        data-testid="composer-attach"
        onChange={(e) => {
          const picked = e.target.files ? [...e.target.files] : [];
          // the same file may be picked again after its chip was removed
          e.target.value = '';
          if (picked.length) onChange([...files, ...picked]);
        }}
      />
    </label>
  );
}

/**
 * The files chosen so far, as removable chips with name and size. Every one is sent, even one the
 * server will refuse: its 413/415/400 names the file and the reason better than a guess here.
 */
export function ChosenFiles({ files, onChange, onRemoved }: { files: File[]; onChange(files: File[]): void; onRemoved(): void }) {
  const { t } = useI18n();
  if (!files.length) return null;
  return (
    <ul className="file-chips composer-files" aria-label={t('composer.files')}>
      {files.map((file, index) => (
        <li key={`${index}:${file.name}:${file.size}`} className="file-chip">
          <span className="file-name">{file.name}</span> <span className="muted small">{formatSize(file.size)}</span>
          <button
            type="button"
            className="link small"
            aria-label={t('composer.removeFile', { name: file.name })}
            onClick={() => {
              onChange(files.filter((_, i) => i !== index));
              // the removed chip's button is gone: focus goes back to the message box
              onRemoved();
            }}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
