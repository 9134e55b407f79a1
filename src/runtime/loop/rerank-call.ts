import type { RerankCall } from '../../rag';
import { addUsage, NO_USAGE, type RunUsage } from '../store/run.records';
import type { PassageReranker } from './step-hooks';

/**
 * A run's rerank model calls as retrieval makes them (rag's RerankCall: the answer's text), and
 * what those that answered cost so far, for the run to add to its usage (the budget and the
 * `usage` events have them already).
 */
export function chargedReranker(reranker: PassageReranker): { call: RerankCall; charged(): RunUsage } {
  let charged = NO_USAGE;
  return {
    call: async (request, signal) => {
      const answer = await reranker(request, signal);
      charged = addUsage(charged, answer.charged);
      return answer.text;
    },
    charged: () => charged,
  };
}
