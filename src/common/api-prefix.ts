/** Every route but /health and /metrics is served under this prefix (app.factory.ts). */
export const API_PREFIX = 'api/v1';
