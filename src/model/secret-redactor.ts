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

  /** The same, with `extra` secret values of the caller's (a workspace's MCP settings) searched for too. */
  redactWith<T>(value: T, extra: readonly string[]): T {
    return redactSecrets(value, [...this.router.knownKeys(), ...extra]);
  }
}
