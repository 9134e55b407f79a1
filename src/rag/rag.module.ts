import { Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AccessService } from '../security';
import { WorkspaceModule } from '../workspace';
import { ModelModule } from '../model';
import { ChunkController } from './chunk.controller';
import { ChunkRepository } from './chunk.repository';
import { ChunkSearchRepository } from './chunk-search.repository';
import { ChunkService } from './chunk.service';
import { DocumentRepository } from './document.repository';
import { DocumentService } from './document.service';
import { Embedder } from './embedder';
import { closeExtractionPool } from './extraction-pool';
import { GraphExtractor } from './graph-extractor';
import { GraphRepository } from './graph.repository';
import { GraphResolver } from './graph.resolver';
import { KnowledgeGraph } from './graph.service';
import { IngestionService } from './ingestion.service';
import { JobController } from './job.controller';
import { JobRunner } from './job-runner';
import { JobRepository } from './job.repository';
import { KnowledgeBaseController } from './knowledge-base.controller';
import { KnowledgeBaseRepository } from './knowledge-base.repository';
import { KnowledgeBaseService } from './knowledge-base.service';
import { OfflineVectorUpgrade } from './offline-vector-upgrade';
import { RetrievalService } from './retrieval.service';
import { SearchRerank } from './search-rerank';
import { VectorIndexer } from './vector-indexer';
import { VectorIndexRepository } from './vector-index.repository';

export { RetrievalService } from './retrieval.service';
export type { MetadataFilter, SearchHit, SearchRequest, SearchResult } from './retrieval.types';

/**
 * Knowledge bases, document ingestion (background jobs), chunking, embeddings and hybrid
 * retrieval, and the knowledge graph of knowledge bases with `graph` on. Other modules use
 * RetrievalService and KnowledgeGraph only. Needs ModelModule (embeddings),
 * WorkspaceModule (the workspace's embedding model) and the global database providers.
 */
@Module({
  imports: [ModelModule, WorkspaceModule],
  controllers: [KnowledgeBaseController, ChunkController, JobController],
  providers: [
    KnowledgeBaseRepository,
    DocumentRepository,
    ChunkSearchRepository,
    ChunkRepository,
    ChunkService,
    JobRepository,
    KnowledgeBaseService,
    DocumentService,
    IngestionService,
    JobRunner,
    Embedder,
    OfflineVectorUpgrade,
    VectorIndexRepository,
    VectorIndexer,
    RetrievalService,
    SearchRerank,
    GraphRepository,
    GraphExtractor,
    KnowledgeGraph,
    // the admin GraphQL API's knowledge graphs
    GraphResolver,
  ],
  exports: [RetrievalService, KnowledgeGraph],
})
export class RagModule implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly access: AccessService,
    private readonly knowledgeBases: KnowledgeBaseRepository,
    private readonly documents: DocumentRepository,
    private readonly jobs: JobRepository,
    private readonly chunks: ChunkRepository,
  ) {}

  /** Every route naming a knowledge base, document, chunk or job is checked against its workspace (security/access.ts). */
  onModuleInit(): void {
    this.access.register('knowledgeBase', (id) => this.knowledgeBases.workspaceOf(id));
    this.access.register('document', (id) => this.documents.workspaceOf(id));
    this.access.register('chunk', (id) => this.chunks.workspaceOf(id));
    this.access.register('job', (id) => this.jobs.workspaceOf(id));
  }

  /** The workers reading uploads and PDF attachments end with the application. */
  onModuleDestroy(): Promise<void> {
    return closeExtractionPool();
  }
}
