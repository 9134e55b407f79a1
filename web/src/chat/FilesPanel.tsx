import { useCallback, useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import { download } from '../api/download';
import { useI18n } from '../i18n/i18n';
import { ErrorNote } from '../ui/ErrorNote';
import { formatSize } from './attachments';
import { SidePanel } from '../ui/SidePanel';

type WorkdirFile = { path: string; size: number; updatedAt: string };

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * The conversation's files (what the agent's file and shell tools wrote) to download, and the
 * conversation itself as a JSON trajectory or a Markdown transcript. Read again whenever
 * `revision` changes (a run of the conversation ended).
 */
export function FilesPanel({ conversationId, revision, onClose }: { conversationId: string; revision: string; onClose(): void }) {
  const { t } = useI18n();
  const [files, setFiles] = useState<WorkdirFile[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let cancelled = false;
    ok(api.GET('/api/v1/conversations/{id}/files', { params: { path: { id: conversationId } } }))
      .then((list) => !cancelled && setFiles(list.items))
      .catch((failure: unknown) => !cancelled && setError(failure));
    return () => {
      cancelled = true;
    };
  }, [conversationId, revision]);

  const save = useCallback((url: string, name: string) => {
    setError(null);
    download(url, name).catch(setError);
  }, []);
  const base = `/api/v1/conversations/${encodeURIComponent(conversationId)}`;

  return (
    <SidePanel className="files-panel" title={t('files.title')} closeLabel={t('settings.close')} onClose={onClose}>
      {files && !files.length && <p className="muted">{t('files.empty')}</p>}
      {files && files.length > 0 && (
        <ul className="file-list">
          {files.map((file) => (
            <li key={file.path}>
              <button className="link" onClick={() => save(`${base}/files/${encodePath(file.path)}`, file.path.split('/').pop() ?? file.path)}>
                {file.path}
              </button>
              <span className="muted small"> · {formatSize(file.size)}</span>
            </li>
          ))}
        </ul>
      )}
      <h3>{t('files.export')}</h3>
      <p className="export-actions">
        <button onClick={() => save(`${base}/export?format=json`, `${conversationId}.trajectory.json`)}>{t('files.exportJson')}</button>
        <button onClick={() => save(`${base}/export?format=markdown`, `${conversationId}.md`)}>{t('files.exportMarkdown')}</button>
      </p>
      <ErrorNote error={error} />
    </SidePanel>
  );
}
