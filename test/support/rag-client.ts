import type { TestApp } from './test-app';

export interface JobBody {
  id: string;
  kind: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  error: string | null;
  result: Record<string, unknown>;
}

/** REST calls of the knowledge-base API for tests, with the caller's token. */
export function ragClient(t: TestApp, token: string) {
  const auth = { 'X-API-Token': token };
  const client = {
    auth,
    async createKnowledgeBase(name: string): Promise<string> {
      const res = await t.http().post('/api/v1/knowledge-bases').set(auth).send({ name }).expect(201);
      return res.body.id as string;
    },
    /** Adds a JSON document and returns its job once finished. */
    async addText(kbId: string, doc: { title: string; text: string; source?: string; metadata?: Record<string, unknown> }): Promise<JobBody> {
      const res = await t.http().post(`/api/v1/knowledge-bases/${kbId}/documents`).set(auth).send(doc).expect(202);
      return client.waitForJob(res.body.id as string);
    },
    /** Polls GET /jobs/:id until the job has finished. */
    async waitForJob(id: string, timeoutMs = 20_000): Promise<JobBody> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const res = await t.http().get(`/api/v1/jobs/${id}`).set(auth).expect(200);
        const job = res.body as JobBody;
        if (job.state === 'succeeded' || job.state === 'failed') return job;
        if (Date.now() > until) throw new Error(`job ${id} still ${job.state} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async search(kbId: string, body: Record<string, unknown>) {
      const res = await t.http().post(`/api/v1/knowledge-bases/${kbId}/search`).set(auth).send(body).expect(200);
      return res.body as { items: Array<{ id: string; documentId: string; title: string; text: string; snippet: string; score: number; headingPath: string[]; source: string; knowledgeBaseId: string }>; degraded: boolean; degradedReason?: string };
    },
  };
  return client;
}
