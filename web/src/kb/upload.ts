import { api, ok, requestHeaders } from '../api/client';
import { errorFrom } from '../api/errors';
import type { Job } from '../api/types';

const POLL_MS = 400;

/** Uploads one file (multipart `file`) and answers the ingestion job the server started. */
export async function uploadDocument(knowledgeBaseId: string, file: File): Promise<Job> {
  const form = new FormData();
  form.append('file', file, file.name);
  const response = await fetch(`/api/v1/knowledge-bases/${encodeURIComponent(knowledgeBaseId)}/documents`, { method: 'POST', headers: requestHeaders(), body: form });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw errorFrom(response.status, body, response.statusText);
  return body as Job;
}

/** Polls the job until it ends, reporting its progress (0…1) as the server does. */
export async function waitForJob(jobId: string, onProgress: (job: Job) => void, signal?: AbortSignal): Promise<Job> {
  for (;;) {
    const job = await ok(api.GET('/api/v1/jobs/{id}', { params: { path: { id: jobId } }, signal }));
    onProgress(job);
    if (job.state === 'succeeded' || job.state === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
