/** Every route but /health is served under this prefix (app.factory.ts). */
export const API_PREFIX = 'api/v1';
