import { useEffect, useState } from 'react';
import { saveBlob } from '../api/download';
import { useI18n } from '../i18n/i18n';
import { ErrorNote } from '../ui/ErrorNote';
import { fetchFile, formatSize, isImage, type StoredAttachment } from './attachments';

/** A user message's files: images as thumbnails, any other file as a chip that downloads it. */
export function MessageAttachments({ attachments }: { attachments: StoredAttachment[] }) {
  const { t } = useI18n();
  if (!attachments.length) return null;
  return (
    <ul className="file-chips" aria-label={t('chat.attachments')}>
      {attachments.map((file, index) => (
        <li key={`${index}:${file.fileId}`}>{isImage(file.mediaType) ? <ImageThumb file={file} /> : <FileChip file={file} />}</li>
      ))}
    </ul>
  );
}

/**
 * The image from a blob: URL: its bytes are fetched with the key (an <img src> cannot send it),
 * the URL revoked when the thumbnail goes away. A file that cannot be read falls back to its chip.
 */
function ImageThumb({ file }: { file: StoredAttachment }) {
  const { t } = useI18n();
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const abort = new AbortController();
    let created: string | null = null;
    fetchFile(file.fileId, abort.signal).then(
      (blob) => {
        if (abort.signal.aborted) return;
        created = URL.createObjectURL(blob);
        setUrl(created);
      },
      () => {
        if (!abort.signal.aborted) setFailed(true);
      },
    );
    return () => {
      abort.abort();
      if (created) URL.revokeObjectURL(created);
    };
  }, [file.fileId]);
  if (failed) return <FileChip file={file} />;
  if (!url)
    return (
      <span className="file-chip muted" aria-busy="true">
        <span className="file-name">{file.name}</span> <span className="small">{t('chat.attachmentLoading')}</span>
      </span>
    );
  return (
    <a href={url} target="_blank" rel="noopener noreferrer" title={t('chat.openImage', { name: file.name, size: formatSize(file.size) })}>
      <img className="attachment-thumb" src={url} alt={file.name} />
    </a>
  );
}

/** A file's name and size; a click fetches it with the key and saves it under its name. */
function FileChip({ file }: { file: StoredAttachment }) {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      saveBlob(await fetchFile(file.fileId), file.name);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="file-chip" data-file-id={file.fileId} disabled={busy} aria-label={t('chat.downloadFile', { name: file.name, size: formatSize(file.size) })} onClick={() => void download()}>
        <span className="file-name">{file.name}</span> <span className="muted small">{formatSize(file.size)}</span>
      </button>
      <ErrorNote error={error} />
    </>
  );
}
