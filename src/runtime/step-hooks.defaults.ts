import { Injectable } from '@nestjs/common';
import { type Retrieved, StepRetriever } from './step-hooks';

/** Until RAG lands: nothing is retrieved. */
@Injectable()
export class NoRetrieval extends StepRetriever {
  async retrieve(): Promise<Retrieved | undefined> {
    return undefined;
  }
}
