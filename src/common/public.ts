import { SetMetadata } from '@nestjs/common';

/**
 * Marks a route that needs no credentials (health checks, GraphiQL's static files): the API key
 * guard lets it through. Here rather than in security so that any module may mark its routes
 * without importing the module that enforces the mark.
 */
export const IS_PUBLIC = 'helix:public';
export const Public = () => SetMetadata(IS_PUBLIC, true);
