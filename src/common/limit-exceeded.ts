import { HttpException, HttpStatus } from '@nestjs/common';
import { say } from './i18n/catalogue';

/**
 * A 429 for a configured abuse limit: the message names the limit's variable so an operator
 * knows what to raise, and a client reads what to wait for. `retryAfterSeconds` becomes the
 * `Retry-After` header (http-errors.ts).
 */
export class LimitExceeded extends HttpException {
  constructor(
    readonly limit: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(say('limit.exceeded', { detail: message, variable: limit }), HttpStatus.TOO_MANY_REQUESTS);
  }
}
