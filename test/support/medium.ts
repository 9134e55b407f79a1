/**
 * Database-backed test factories for `*.db.spec.ts` (medium tests, as immich calls them): one
 * migrated database per spec file (PGlite in memory, or a throwaway PostgreSQL database with
 * HELIX_TEST_DATABASE_URL), with builders that go through the real repositories and services.
 * Every builder makes fresh ids, so the tests of a file share the database without seeing each
 * other's rows. A spec's whole set-up:
 *
 *   let t: MediumTest;
 *   beforeAll(async () => (t = await mediumTest()));
 *   afterAll(() => t?.close());
 *
 * then `const auth = await t.workspace()`, `await t.conversation(auth)`, `t.conversations.fork(…)`.
 */
import { AgentRepository } from '../../src/workspace/agent.repository';
import { AgentService } from '../../src/workspace/agent.service';
import { ConversationRepository, type NewConversation } from '../../src/conversation/conversation.repository';
import type { ConversationRecord, MessageRecord, NewMessage } from '../../src/conversation/conversation.records';
import { ConversationService } from '../../src/conversation/conversation.service';
import { MessageRepository } from '../../src/conversation/message.repository';
import { DatabaseHandle, type VectorSupport } from '../../src/database/database-handle';
import type { PrismaService } from '../../src/database/prisma.service';
import type { SqlClient } from '../../src/database/sql-client';
import type { ModelRouter } from '../../src/model/model-router';
import type { ModelInfo, ModelRef } from '../../src/model/model.types';
import { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from '../../src/model/providers/hash-embedding';
import { BudgetService } from '../../src/observe/budget.service';
import type { MetricsService } from '../../src/observe/metrics.service';
import { UsageLedger } from '../../src/observe/usage-ledger';
import { UsageRepository } from '../../src/observe/usage.repository';
import { DocumentRepository } from '../../src/rag/document.repository';
import { OFFLINE_EMBEDDING_LABEL, storedVector, vectorLiteral } from '../../src/rag/embedder';
import { KnowledgeBaseRepository } from '../../src/rag/knowledge-base.repository';
import { type Language, lexicalText, textSearchConfig } from '../../src/rag/lexical';
import { countTokens } from '../../src/rag/token-count';
import type { DocumentRecord, KnowledgeBaseRecord, NewChunk } from '../../src/rag/rag.records';
import { AuditRepository } from '../../src/security/audit.repository';
import type { KeyAuth, Role } from '../../src/security/auth-context';
import { ConfigHistory } from '../../src/security/config-history';
import { ConfigVersionRepository } from '../../src/security/config-version.repository';
import { WorkspaceRepository } from '../../src/workspace/workspace.repository';
import { WorkspaceService } from '../../src/workspace/workspace.service';
import { WorkdirRepository } from '../../src/workdir/workdir.repository';
import { WorkdirService } from '../../src/workdir/workdir.service';
import { createTestDatabase } from './test-database';

/** The embedding model of `t.document`'s vectors (offline hashed words, as the app's offline embedder). */
export const HASHED_MODEL = OFFLINE_EMBEDDING_LABEL;

/** `text`'s offline hashed-words embedding, as ingestion stores it. */
export const hashedEmbedding = (text: string): Float32Array => storedVector(hashEmbedding(text, OFFLINE_EMBEDDING_DIMENSIONS));

/** `text` as a pgvector literal of the offline hashed-words embedding. */
export const hashedVector = (text: string): string => vectorLiteral(hashedEmbedding(text));

/** `text` as ChunkSearch's query vector of the offline embedding. */
export const hashedQuery = (text: string) => ({ literal: hashedVector(text), model: HASHED_MODEL, dimensions: OFFLINE_EMBEDDING_DIMENSIONS });

/** What `t.budgets()` prices every model at (USD per million tokens) unless told otherwise. */
export const TEST_PRICES = { inputPrice: 1, outputPrice: 2 };

export interface MediumTest {
  sql: SqlClient;
  prisma: PrismaService;
  /** whether chunks have embeddings here (pgvector installed and migrated) */
  vector: VectorSupport;
  close(): Promise<void>;

  /** `<prefix>_<n>`, unique in this database */
  id(prefix: string): string;
  /** The repository of this database (one instance per class, shared by the services below). */
  repo<T>(type: new (sql: SqlClient) => T): T;

  /** A new workspace (with `settings` written as given, unvalidated), and a member's key in it. */
  workspace(overrides?: { id?: string; name?: string; settings?: object; role?: Role }): Promise<KeyAuth>;
  /** A conversation of the caller's workspace, through ConversationRepository.create. */
  conversation(auth: Pick<KeyAuth, 'workspaceId'>, overrides?: Partial<NewConversation>): Promise<ConversationRecord>;
  /** Appends a message (the next seq) through MessageRepository.append. */
  message(conversationId: string, draft: Omit<NewMessage, 'conversationId'>): Promise<MessageRecord>;
  /** A run row of the conversation (CREATED, step 0, for messages and spans to refer to); its id. */
  run(conversationId: string, overrides?: { id?: string; goal?: string; model?: ModelRef; maxSteps?: number }): Promise<string>;
  /** language `simple` unless given */
  knowledgeBase(auth: Pick<KeyAuth, 'workspaceId'>, overrides?: { id?: string; name?: string; description?: string | null; language?: Language; graph?: boolean }): Promise<KnowledgeBaseRecord>;
  /**
   * A ready document of one chunk holding `text` (with its hashed vector where the database has
   * pgvector), through DocumentRepository.
   */
  document(knowledgeBaseId: string, text: string, overrides?: { id?: string; metadata?: Record<string, unknown> }): Promise<DocumentRecord>;

  /** ConversationService on the shared repositories */
  readonly conversations: ConversationService;
  /** WorkdirService on the shared repository, with the default quota */
  readonly workdir: WorkdirService;
  /** WorkspaceService with its real ConfigHistory */
  readonly workspaces: WorkspaceService;
  readonly agents: AgentService;
  readonly history: ConfigHistory;
  /**
   * A new BudgetService (its own cache of days, as another instance would have) on the shared
   * UsageRepository; every model priced `prices`; the budgets its refusals name in `rejected`.
   */
  budgets(prices?: Pick<ModelInfo, 'inputPrice' | 'outputPrice'>): { budgets: BudgetService; usage: UsageRepository; rejected: string[] };
}

export async function mediumTest(): Promise<MediumTest> {
  const db = await createTestDatabase();
  const handle = await DatabaseHandle.open({ databaseUrl: db.env.DATABASE_URL, dataDir: db.env.HELIX_DATA_DIR ?? 'memory://' });
  await handle.migrate();
  const sql = handle.sql;
  let counter = 0;
  const id = (prefix: string) => `${prefix}_${++counter}`;

  const repos = new Map<unknown, unknown>();
  const repo = <T>(type: new (sql: SqlClient) => T): T => {
    if (!repos.has(type)) repos.set(type, new type(sql));
    return repos.get(type) as T;
  };
  const once = <T>(make: () => T): (() => T) => {
    let made: T | undefined;
    return () => (made ??= make());
  };
  const history = once(() => new ConfigHistory(sql, repo(ConfigVersionRepository), repo(AuditRepository)));
  const workspaces = once(() => new WorkspaceService(repo(WorkspaceRepository), history()));
  const agents = once(() => new AgentService(repo(AgentRepository), repo(WorkspaceRepository), workspaces(), history()));
  const conversations = once(() => new ConversationService(sql, repo(ConversationRepository), repo(MessageRepository), agents(), workdir()));
  const workdir = once(() => new WorkdirService(repo(WorkdirRepository), { HELIX_WORKSPACE_QUOTA_BYTES: 10 * 1024 * 1024 }));

  return {
    sql,
    prisma: handle.prisma as PrismaService,
    get vector() {
      return handle.vector;
    },
    close: async () => {
      await handle.close();
      await db.drop();
    },
    id,
    repo,

    async workspace(overrides = {}) {
      const workspaceId = overrides.id ?? id('ws_t');
      await repo(WorkspaceRepository).ensure(workspaceId, overrides.name ?? workspaceId);
      if (overrides.settings) {
        await sql.$executeRaw`UPDATE workspaces SET settings = ${JSON.stringify(overrides.settings)}::jsonb WHERE id = ${workspaceId}`;
      }
      return { kind: 'key', workspaceId, role: overrides.role ?? 'member', keyId: `key_${workspaceId}` };
    },

    conversation: (auth, overrides = {}) =>
      repo(ConversationRepository).create({ id: id('conv_t'), workspaceId: auth.workspaceId, title: 'A title', model: null, settings: {}, ...overrides }),

    async message(conversationId, draft) {
      const stored = await repo(MessageRepository).append({ ...draft, conversationId });
      if (!stored) throw new Error(`t.message: no conversation ${conversationId}`);
      return stored;
    },

    async run(conversationId, overrides = {}) {
      const runId = overrides.id ?? id('run_t');
      const model = JSON.stringify(overrides.model ?? { provider: 'openai', modelId: 'm' });
      const inserted = await sql.$executeRaw`
        INSERT INTO runs (id, conversation_id, workspace_id, goal, model, max_steps, updated_at)
        SELECT ${runId}, id, workspace_id, ${overrides.goal ?? 'g'}, ${model}::jsonb, ${overrides.maxSteps ?? 3}, now()
        FROM conversations WHERE id = ${conversationId}`;
      if (inserted !== 1) throw new Error(`t.run: no conversation ${conversationId}`);
      return runId;
    },

    knowledgeBase: (auth, overrides = {}) => {
      const kbId = overrides.id ?? id('kb_t');
      return repo(KnowledgeBaseRepository).create({
        id: kbId,
        workspaceId: auth.workspaceId,
        name: overrides.name ?? kbId,
        description: overrides.description ?? null,
        language: overrides.language ?? 'simple',
        graph: overrides.graph ?? false,
      });
    },

    async document(knowledgeBaseId, text, overrides = {}) {
      const documents = repo(DocumentRepository);
      const docId = overrides.id ?? id('doc_t');
      await documents.insert({ id: docId, knowledgeBaseId, title: docId, source: 'text', mimeType: 'text/plain', checksum: docId, metadata: overrides.metadata ?? {} });
      const language = (await repo(KnowledgeBaseRepository).languageOf(knowledgeBaseId)) ?? 'simple';
      const chunk: NewChunk = {
        id: `chk_${docId}`,
        ordinal: 0,
        text,
        lexical: lexicalText(text, language),
        tokenCount: countTokens(text),
        headingPath: [],
        charStart: 0,
        charEnd: text.length,
      };
      if (handle.vector.enabled) chunk.embedding = hashedEmbedding(text);
      await documents.insertChunks({ id: docId, knowledgeBaseId, config: textSearchConfig(language) }, [chunk], handle.vector.enabled ? HASHED_MODEL : null);
      await documents.markReady({ id: docId, chunkCount: 1, charCount: text.length });
      return (await documents.find(knowledgeBaseId, docId))!;
    },

    get conversations() {
      return conversations();
    },
    get workspaces() {
      return workspaces();
    },
    get workdir() {
      return workdir();
    },
    get agents() {
      return agents();
    },
    get history() {
      return history();
    },
    budgets(prices = TEST_PRICES) {
      const rejected: string[] = [];
      const usage = repo(UsageRepository);
      const router = { describe: async () => ({ ...prices, contextWindow: 128_000 }) as unknown as ModelInfo } as unknown as ModelRouter;
      const metrics = { budgetRejected: (budget: string) => void rejected.push(budget) } as unknown as MetricsService;
      return { budgets: new BudgetService(usage, new UsageLedger(usage), router, workspaces(), metrics), usage, rejected };
    },
  };
}
