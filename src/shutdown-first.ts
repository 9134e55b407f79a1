import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { SseWriter } from './runtime';

/**
 * The first step of shutting down, run before any module's own (AppModule's providers are
 * destroyed first): open event streams end cleanly and idle keep-alive connections close.
 * GraphQLModule's Apollo server drains the HTTP server when it stops, waiting up to 10 s for
 * every connection to close before cutting them: an open stream used to hold shutdown that long
 * (past Docker's stop timeout) and then reached its client as a socket error.
 */
@Injectable()
export class ShutdownFirst implements OnModuleDestroy {
  private readonly logger = new Logger('Helix');

  constructor(
    private readonly streams: SseWriter,
    private readonly adapter: HttpAdapterHost,
  ) {}

  onModuleDestroy(): void {
    const open = this.streams.openStreams;
    if (open) this.logger.log(`Ending ${open} open event stream${open === 1 ? '' : 's'}`);
    this.streams.endAll();
    const server = this.adapter.httpAdapter?.getHttpServer() as Server | undefined;
    server?.closeIdleConnections?.();
  }
}
