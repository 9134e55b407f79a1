/** The public face of src/security: what other modules may import from it. */
export { Access, AccessService } from './access';
export { adminWorkspace } from './admin-scope';
export { ApiKeyGuard, bearerToken, sha256 } from './api-key.guard';
export { AllowStreamToken, Auth, DEFAULT_WORKSPACE_ID, isBootstrap } from './auth-context';
export type { AuthContext } from './auth-context';
export { applyBrowserPolicy } from './browser-policy';
export { ConfigHistory } from './config-history';
export { graphqlGate } from './graphql-gate';
export { LimitsModule } from './limits/limits.module';
export { StreamLimiter } from './limits/stream-limiter';
export { rotateSecrets } from './secret-rotation';
export { SecretRepository } from './secret.repository';
export { SecretService } from './secret.service';
export { SecurityModule } from './security.module';
export { StreamTokenService } from './stream-token.service';
