import { Injectable } from '@nestjs/common';
import { redactSecrets } from '../common';
import { ModelRouter } from './model-router';

/**
 * Removes secrets from what is shown for debugging (debug events, stored traces): the provider
 * keys the router knows (env and every key revealed from a ModelConfig secret) and Helix's own
 * tokens, plus whatever `redactSecrets` recognises by name or shape.
 */
@Injectable()
export class SecretRedactor {
  constructor(private readonly router: ModelRouter) {}

  redact<T>(value: T): T {
    return redactSecrets(value, this.router.knownKeys());
  }
}
