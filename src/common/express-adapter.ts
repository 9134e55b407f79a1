import { NotFoundException, type NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, NextFunction, Request, Response } from 'express';
import { redactUrl } from './redact-url';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { say } from './i18n/catalogue';

/**
 * Express moves every request and response onto its own prototypes (`app.request`,
 * `app.response`) when it arrives. V8 then gives that object a hidden class of its own, which
 * every property Express, Nest and Helix add afterwards copies again: a Map and a descriptor
 * array kept per request and per response for as long as it is open (~2 KB for each idle event
 * stream) and several KB of garbage per request. Building them on those prototypes from the
 * start makes Express's switch a no-op, so all requests share their hidden classes.
 *
 * Only the plain HTTP server is built this way; HTTPS and the 503/force-close options (unused
 * by Helix) keep Nest's own.
 */
export class SharedShapeExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();

    // the classes' prototypes take the place of Express's, with Express's methods behind them
    class Request extends IncomingMessage {}
    Object.setPrototypeOf(Request.prototype, Object.getPrototypeOf(app.request));
    Object.defineProperties(Request.prototype, Object.getOwnPropertyDescriptors(app.request));
    app.request = Request.prototype as Express['request'];

    class Response extends ServerResponse {}
    Object.setPrototypeOf(Response.prototype, Object.getPrototypeOf(app.response));
    Object.defineProperties(Response.prototype, Object.getOwnPropertyDescriptors(app.response));
    app.response = Response.prototype as unknown as Express['response'];

    this.httpServer = createServer({ IncomingMessage: Request, ServerResponse: Response }, app);
  }

  /**
   * Nest answers unknown paths only under the global prefix, so any other path (`/`, `/api`, a
   * typo) got Express's HTML page, and its message repeats the query string, which may carry a
   * stream token. This one answers every path, naming the path alone; the error goes through
   * Nest's exception layer (mounted at the root after this), so it leaves as the JSON every
   * error is.
   */
  override setNotFoundHandler(): void {
    this.use((request: Request, _response: Response, next: NextFunction) => {
      next(new NotFoundException(say('http.no_route', { method: request.method, path: redactUrl(request.originalUrl, { withQuery: false }) })));
    });
  }
}
