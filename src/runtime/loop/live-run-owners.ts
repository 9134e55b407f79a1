import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { ConversationService } from '../../conversation';
import { RunStore } from './run-store';

/**
 * The workspace of each run this process started and that is still live, so that the access
 * check of its event stream, opened right after the post, costs no query on the chat path.
 * An entry goes when its run ends or its conversation is deleted here; every other run (and
 * every run after a restart) is looked up in the database.
 */
@Injectable()
export class LiveRunOwners implements OnModuleDestroy {
  private readonly owners = new Map<string, { workspaceId: string; conversationId: string }>();
  private readonly subscriptions: Subscription[];

  constructor(runs: RunStore, conversations: ConversationService) {
    this.subscriptions = [
      runs.ended$.subscribe(({ runId }) => this.owners.delete(runId)),
      conversations.removed$.subscribe((conversationId) => {
        for (const [runId, owner] of this.owners) if (owner.conversationId === conversationId) this.owners.delete(runId);
      }),
    ];
  }

  note(runId: string, workspaceId: string, conversationId: string): void {
    this.owners.set(runId, { workspaceId, conversationId });
  }

  workspaceOf(runId: string): string | undefined {
    return this.owners.get(runId)?.workspaceId;
  }

  onModuleDestroy(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}
