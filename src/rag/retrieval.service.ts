// TEMPORARY STUB (agent worktree only; replaced by the rag branch)
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../security/auth-context';
import type { SearchRequest, SearchResult } from './retrieval.types';
@Injectable()
export class RetrievalService {
  async search(_auth: AuthContext, _request: SearchRequest): Promise<SearchResult> { return { items: [], degraded: false }; }
}
